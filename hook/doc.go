// Package hook is the loop's extension points (seeds 000 and 002): Go hook
// chains registered on the worker and run inside the agent workflow.
//
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
// turn with a recorded reason; it never leaves the workflow stuck.
package hook
