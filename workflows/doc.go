// Package workflows is the agent workflow: the thin Temporal shell around
// package loop. It registers the signals, updates and queries and turns
// them into loop requests; it executes the commands the loop returns
// (activities, local activities, timers, hook chains, journal markers,
// Continue-As-New) and feeds their outcomes back; it keeps the search
// attributes and current details, and records once per run the worker
// settings that decide commands, the loop's rules among them, so a worker
// upgrade replays every running agent as it ran.
//
// One baseline: a run records its config (a GetVersion marker, then a
// side effect) and follows the rules it names, from loop.Baseline to
// loop.Latest. A run recorded before the run config, or under rules a
// build does not follow, fails its workflow task saying why instead of
// replaying under rules it did not run by. A later change to what a run
// records or decides is guarded from the start: by the next loop rules
// (recorded in the run config) or by a GetVersion of its own, and proven
// by replaying testdata/histories, which holds baseline runs only.
//
// It decides nothing about turns, steps or the inbox: every rule lives in
// package loop. It adds only what the loop cannot see: update validators
// refuse a message, busy, while the run's history would pass
// signals.MaxRunHistoryBytes (replay runs no validator, so this decides no
// command), and a child's reports go to its parent one at a time, since
// Temporal does not keep two signals in the order sent; an update hands
// the signals delivered before it to their handlers first, so the loop
// sees them in history's order. It must stay deterministic: no time.Now,
// time.Sleep, goroutines, native channels or select, map iteration,
// randomness or environment reads; only the workflow package's
// equivalents (checked by workflowcheck). It never imports activities, fx,
// net/http or a provider SDK; activities are named by their durable names.
//
// History is the session log. The model and tool activities get references
// into the log, never its content; every event is journaled into history
// exactly once (in the next activity input, in a side-effect marker when the
// agent goes idle, or in the workflow result) in its stripped form, and
// content stays where it first entered history; a turn that ends the
// plainest way writes no marker (idletail.go). See package projection.
//
// That idle tail stays, as one rule in one shell function (writeJournal,
// idletail.go) that every run follows, with no run flag: written as a
// marker it would cost an event and ~300 bytes a turn, taking the
// activity tool's 50-turn history (296 kB in bench/README.md) past its
// 300 KB bound. Projection derives the tail's events (projection's
// idletail.go); the loop's Ready still has no slot saying what must
// become durable, so the shell's rule and projection's are two halves
// kept in step by the replay corpus, which checks every history projects
// to the log its run held.
// After each step of the loop the shell publishes the log's new events to
// Config.Snapshots, in process and never in history, so activities it
// schedules on the same worker read them without a query; publishing is a
// side effect that changes nothing a command or a replay depends on.
package workflows
