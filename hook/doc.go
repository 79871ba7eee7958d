// Package hook is the loop's extension points (seeds 000, 002 and 003): Go
// hook chains registered on the worker and run inside the agent workflow.
//
//   - SessionStart (emit, seed 003's agent/session-start): once per agent,
//     when it is published, before its first turn, in every agent that
//     enables it (children too); see "Session start" below.
//   - StepBoundary (serial): the step is claimed, before its model is
//     chosen (a hook may switch the model here: SelectModel applies from
//     the step being proposed).
//   - Model (waterfall): chooses provider, model and effort for the step.
//   - PreStep (waterfall): reject or enter(messages) for one claimed batch,
//     before every proposed step; the returned decision is authoritative.
//   - RuntimeContext (serial): contributes the runtime-context snapshot.
//   - Request (waterfall): the frozen call configuration; only from next().
//   - RequestError (waterfall): after a failed or aborted model call closed
//     its step; a hook that owns recovery returns Retry (with a backoff in
//     After, or Compact) without calling next.
//   - TurnStopping (serial): when the turn would otherwise stop and the
//     next-step list is empty; a hook that wants another step steers.
//   - ToolPre / ToolPost: in model order before a call starts / as results
//     become ready.
//   - llm/stream is not here: it wraps the stream in the model activity
//     (activities.StreamHook).
//
// Waterfall: each hook gets next, which runs the rest of the chain and the
// loop's default; not calling next short-circuits everything downstream.
//
// Hooks decide; the loop acts. A hook asks for work as data (Decision's
// Compact, Action's Retry, After and Compact) and package loop plans and
// runs it, so the data types live there and are aliased here.
//
// Hooks run in workflow code, so they must be deterministic: no I/O, no
// clock, no goroutines; a hook that needs I/O executes an activity with the
// workflow.Context it is given, and a hook that waits uses workflow.Sleep.
// An agent runs only the hooks its options enable, in the order they name
// them; a hook sees only its own agent. A hook's error or panic fails the
// turn with a recorded reason (session-start's excepted: below); it never
// leaves the workflow stuck.
//
// # Session start
//
// An agent's SessionStart hooks run once, when it is published: in the
// first run of a new agent, after its first message (Start.First) is in
// its inbox and before anything else, its first turn included. They run
// every one, in chain order, under the run's context (no turn is open for
// a cancel to interrupt). They do not run again in a run continued as new
// (the seed's state says the session started), nor in an agent started
// before this build (its run follows rules 3, which have no session
// start). On replay the workflow calls them again, as it calls every
// hook: they must be deterministic, and what they did (activities,
// injected messages) is taken from history, not done twice.
//
// A session-start hook seeds the agent through Agent: Inject records a
// next-step message (inbox/inserted, like any inject, with a hook-made ID)
// that the first turn's first step claims with the first message, so the
// first model request sees it, once; Steer does so and also opens a turn
// when the agent has no first message; SelectModel, Spawn and the reads
// work as at any point. Cancel acts as a client's cancel between turns: it
// discards the pending messages unless keepInbox.
//
// It is a notification and cannot veto: an error or panic (reported as
// "hook NAME failed|panicked at session-start: ...") is recorded in the
// session/started event's Errors, and changes nothing else: the other
// hooks still run, and the agent goes on to its first turn. Errors also
// names enabled hooks this worker lacks (the first turn then fails on
// them, as always). The session/started event (Hooks: those that ran)
// follows what they recorded; an agent that enables no session-start hook
// this worker has records none.
package hook
