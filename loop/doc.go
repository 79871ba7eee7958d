// Package loop is the agent loop of the design seeds (000, 002, 003) as one
// pure state machine: turns, steps and retry turns, the two-list inbox, the
// hook points, tool scheduling, compaction and Continue-As-New seeds.
//
// One way in, one way out (etcd raft's Step and Ready): the shell calls
// Step with an Input (a client's request, or the outcome of a command it
// ran) and gets a Ready: the session events the step recorded, the
// Journal of those that must become durable now, and the Commands now due
// (call the model, start a tool, run a hook chain, continue as new). The
// shell executes the commands and feeds their outcomes back. The loop
// performs no I/O, reads no clock and never imports Temporal (a test
// enforces the import graph), so every rule is table-tested with no
// server at all.
//
// Ready.Journal is the one slot for what must become durable. The loop
// decides when (record.go's carry): at a command whose payload history
// keeps, when the agent goes idle, at the end of the run, and, once it
// continues as new, at every step (the seed carries them). It never
// decides how: Carry (carry.go) is the shell's rule, putting the journal
// in the first such command or leaving it for a marker; the workflow
// shell follows it and adds its plain idle tail (see package workflows
// for why that rule stays), and the property tests' shell follows it and
// checks that history carries every event once, in order.
//
// # State
//
// Durable state changes only by folding session events: record appends an
// event to the log and applies it to eventlog.State (inbox, status, turn
// and step, open calls, usage, model selection, a cancel's cause, a
// dispose, queued maintenance, the retry chain). Requests are recorded when
// they arrive (inbox/inserted, model/selected, turn/canceling,
// agent/disposing, maintenance/queued). Everything else the Loop holds is
// derived and says so where it is declared: the dedupe window and the
// context size (from the log), the open turn's working set and the phase
// (which outcome the loop waits for; replay rebuilds them by stepping the
// same inputs, and a seed is only taken at an idle boundary where they are
// empty). The phases and their transitions are listed in phase.go; every
// change of phase goes through moveTo, which keeps the last eight in a
// trail that an ErrInvalidTransition's message names (for people only: a
// seed does not carry it and nothing decides on it). A step's tool calls
// are one slice of toolCall (toolcall.go), whose methods are a call's
// transitions, from waiting to committed.
//
// # The seeds' rules, and where the loop decides them
//
//   - An idle agent wakes for a wakeful message (followup, steer, a send
//     with wake); a next-turn message sent without wake waits for the next
//     wake. While the running interval lasts, turns drain the next-turn
//     list one prompt a turn. Injected messages never open a turn.
//   - A step claims all pending next-step input, plus one next-turn message
//     on a turn's first step (not on a retry turn), then runs step-boundary,
//     the model waterfall and pre-step, whose decision is authoritative.
//   - An agent with MCP tools ("mcp:<server>") lists its servers after
//     step-boundary, once a turn and once a run; tools/listed is recorded
//     only when a listing changed, and the step's tool set comes from the
//     listings recorded in the run, never from a live server.
//   - The runtime-context and request waterfalls run before anything enters
//     the context, so a cancel while the request is prepared commits
//     neither system nor user messages; then the system prompt (when it
//     changed), the entered messages, the runtime context (when it
//     changed), request/header (when it changed) and request/context are
//     recorded and the model is called.
//   - Tool calls start by execution mode (parallel in a bounded rolling
//     pool, sequential one at a time, exclusive as a barrier); tool/call is
//     recorded when a call really starts, after its pre hooks; results are
//     committed in model order after their post hooks. A call the agent
//     may not use, a denied call and a call canceled before it started get
//     results whose Outcome says so.
//   - At a natural stop, pending next-step input (steer or inject) takes
//     another step; only when the next-step list is empty does turn-stopping
//     run, and steering it records takes another step. A concluding tool
//     result ends the tool loop at its step.
//   - A failed or aborted model call closes its step and runs request-error;
//     a retry action closes the failed turn and opens a retry turn, after a
//     durable timer when it asks for backoff, after compaction when it asks
//     for that (retrying only if the context shrank).
//   - No built-in turn budget: the turn-budget hook, on by default, bounds
//     steps; token and cost budgets end a turn before its next model call.
//   - A message sent for a later time is recorded as inbox/scheduled and
//     waits outside the inbox on a durable timer of its own, across turns
//     and runs (a seed carries it, the next run arms its timer again);
//     then it enters its list from the initiator "timer" like any message.
//   - Cancel aborts the open turn (recorded as turn/canceling; in-flight
//     work is interrupted) and discards the inbox unless keepInbox, never
//     scheduled messages; dispose cancels, then discards what is pending
//     and scheduled and finishes once the turn closed.
//   - Maintenance runs only in a true idle phase; work arriving meanwhile
//     waits for it.
//
// Bounds by bytes keep anything a client or a model sends from taking a
// run past Temporal's limits: a message is refused, busy, while more than
// signals.MaxPendingBytes would wait; a step runs at most
// MaxLocalCallsPerStep calls as local activities; a summary keeps at most
// half a seed's bytes verbatim. And a child's end counts what its reports
// did not, so a tree counts every token whatever order its reports arrive
// in (the shell also sends a child's reports one at a time).
//
// A fork (fork.go) is seeded by the same rules from another agent's log
// folded up to a turn or step boundary (ForkSeed), and records
// session/forked at its first step. It needs no rules version: only a
// seed that names a fork records it, and no run before forks had one.
//
// These are Rules3, the baseline of the first tagged release (Baseline);
// Rules4, which add session start: a new agent that enabled
// session-start hooks runs them once, before its first turn, and records
// session/started (sessionstart.go); Rules5, which add edit before
// approve (below); RulesRewind, which add rewinding in place (below);
// RulesCallFromHeader (rules 7): a model call's input names no
// configuration (turn and step are its activity ID's, the rest the
// request/header its run's log records, at a run's first call even when
// unchanged), so history holds it once; RulesUpgradeTask (rules 8),
// which add the upgrade maintenance task: at a true idle phase it is
// recorded done and the run continues as new (upgrade.go); and RulesA2A
// (9, Latest), under which an "a2a:<name>" tool entry offers the model
// the worker's remote-agent tool signals.A2AToolName(name) (step.go's
// toolSet). A run
// keeps the rules it started
// with until it continues as new, so a change to what the loop records or
// decides adds a version and branches on it; a Config naming rules outside
// Baseline to Latest fails the run (ErrUnknownRules). The pre-release
// generations (rules 1 and 2) are gone, and so are their histories.
//
// # Edit before approve
//
// A person may approve a call waiting for approval with edited arguments
// (signals.Decision.Args), unless the approval policy names the tool in
// NoEdit; edits are allowed by default, since whoever approves decides
// already whether the call runs at all. The loop refuses an edit on a
// denial or an answer, in a run under rules before Rules5, or on a call
// the policy forbids; the shell's update validator checks it against the
// tool's schema (Loop.WaitingCall). A refused edit records nothing and
// the call still waits. An accepted one is recorded on decision/made
// (Args, and Original: what the model asked), and the call runs with it:
// its arguments travel in the activity's input, since the assistant
// message in the log keeps the model's. From that event on, the folded
// conversation's assistant message carries the edited arguments: the
// model sees its call as made, the result that follows answers those
// arguments, and every provider's pairing of a tool call with its result
// holds. The log stays truthful: the assistant/message event keeps what
// the model wrote, decision/made who changed it to what.
//
// # Rewind in place
//
// A rewind (Rewind, rewind.go) brings an idle agent back to the end of an
// earlier turn K: it is recorded as session/rewound, a request like any
// other, and every fold of the conversation reads it and keeps the first
// Keep messages, the conversation turn K ended with. Temporal's reset was
// the other way: it would cut the run's history at turn K's workflow task
// and replay signals and updates after it. It was not taken, because it
// rewrites the one thing Tether keeps truthful: the turns after K would
// leave the run's history (projection, the transcript and a fork's prefix
// read history), what they spent would no longer be counted (a tree's
// budget is a fold of the log, and spending must not be refunded),
// children started after K would be orphaned from the events that
// started them, and a reset cannot reach back into an earlier run of a
// Continue-As-New chain at all. The recorded event keeps all of it: the
// later turns stay, marked rewound past; usage stays; children go on;
// turn numbers go on; and the run keeps, and its seed carries, where each
// turn ended (signals.RewindMarks), so a turn of an earlier run is
// reached without reading history. Where the fold can no longer rebuild
// turn K (a compaction or pruning since rewrote what came before it, it
// was rewound past, or it is older than the marks kept) the rewind is
// refused, signals.ErrRewindLost, naming a fork, which reads turn K from
// history. A rewind while a turn is running is refused too, never made
// by canceling the turn: the caller may not know what runs; cancel it
// first. Refusals record nothing; a rewind to where the agent stands
// records nothing either. A run under rules before RulesRewind refuses
// every rewind (it kept no turn ends), and its seed carries none, so its
// next run rewinds no further back than where it began.
//
// # Orchestration, a machine of its own
//
// Children, decisions by people and durable waits are the orchestrator's
// (orch.go, children.go, orchestrate.go), a sub-machine the Loop holds
// and feeds; the rules a child starts by (its options, task queue and
// budget share) are its spawns (spawn.go), which read the config and the
// fold and change nothing. Its inputs: the orchestration inputs of Step
// (SpawnChild, Decide, ChildStart, ChildReport, ChildClosed, ParentGone),
// a decide or wait TimerFired, the start of a spawn_agent, ask_human or
// wait call, a call's approval check after its pre hooks, a wakeful
// message (which ends interruptible waits) and the agent's end (its
// children are disposed). It holds only its timers (the decision and wait
// timers started and not yet fired, so a late one is spent). It reads
// the run's Config and the loop's fold, and shares the loop's dedupe
// window with the inbox, since a decision's or a report's ID is a message
// ID; it changes the fold only by recording. What it does goes out
// through orchHost, a six-method interface the Loop implements, in the
// order it does it: the events it records, the commands it emits
// (StartChild, SignalChild, StartTimer, CancelTimer), and the open step's
// calls it answers, settles or starts (toolCall's transitions, then the
// loop's scheduling pass, runTools). Recording through the loop rather
// than returning its events keeps every event and command in the order
// the recorded histories hold, so the split needed no rules version.
//
// Never: I/O, clocks, randomness, goroutines, map iteration, Temporal
// imports. Workflow code calls it, so it must replay identically.
package loop
