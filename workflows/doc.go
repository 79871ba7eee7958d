// Package workflows is the agent workflow: the thin Temporal shell around
// package loop. It registers the signals, updates and queries and turns
// them into loop requests; it executes the commands the loop returns
// (activities, local activities, timers, hook chains, Continue-As-New),
// carrying the journal each Ready holds, and feeds their outcomes back;
// it keeps the search
// attributes and current details, and records once per run the worker
// settings that decide commands, the loop's rules among them, so a worker
// upgrade replays every running agent as it ran.
//
// One baseline: a run records its config (a GetVersion marker, then a
// side effect) and follows the rules it names, from loop.Baseline to
// loop.Latest. A run recorded before the run config, or under rules a
// build does not follow, fails its workflow task saying why instead of
// replaying under rules it did not run by. A later change to what a run
// records or decides is guarded from the start, and proven by replaying
// testdata/histories, which holds baseline runs only.
//
// The rule for every such change: it bumps loop.Latest (the next Rules,
// recorded in the run config), so that an older build refuses the run
// cleanly. A bare GetVersion is not enough: a build that does not know a
// change ID replays a run whose history holds its version marker as if
// the marker were absent (the SDK skips markers it is not asked for), and
// then decides the old way over history the new way wrote. The run config
// is decoded strictly as well: a field this build does not know (a newer
// build's setting) is refused like unknown rules, naming the field. Either
// refusal panics, which fails the workflow task with the reason and
// records nothing; the task is retried until a build that knows the run
// takes it, in every mode (with or without search attributes).
//
// A worker with Worker Deployment Versioning registers the workflow with
// RegisterVersioned: each run is Pinned to the version that started it,
// and its Continue-As-New starts the next run AutoUpgrade, so an agent
// moves to the deployment's current version at a turn boundary and never
// mid-run. Tether decides when: at its history limits as always, at the
// next true idle once asked (the upgrade maintenance task, loop rules
// RulesUpgradeTask; runs under older rules refuse it), or, with
// Config.UpgradeAfterTurns, at the end of the turn that makes that many in
// the run once the server reports (in the workflow task's started event,
// so a replay reads the same) that the run's version is no longer the
// deployment's target. What moves with it: the seed carries scheduled
// messages, whose timers the next run arms again on the new version; no
// decision or wait timer runs at a boundary (no call is open there). A
// child is its own workflow: it runs on the version that started it and
// stays there when its parent moves, until its own Continue-As-New (or an
// upgrade task sent to it) moves it; the parent-close policy keeps it
// across its parent's Continue-As-New either way.
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
// exactly once in its stripped form, and content stays where it first
// entered history. See package projection.
//
// What must become durable is a slot of the loop's Ready (Journal: the
// loop decides when), and one function decides how history carries it:
// carry (carry.go), by loop.Carry's rule. It goes in the first command of
// the Ready whose payload history keeps (a model, summary or tool
// activity's input, the Continue-As-New seed, the workflow result); a run
// continuing as new adds what it applies while it settles to the seed;
// else it is a journal marker written after the commands, or, for the
// plain idle tail (a turn that ends the plainest way), nothing: the
// status upsert to idle, or the bare workflow task, stands for it and
// projection derives its events (projection's idletail.go). The tail rule
// stays, for every run and with no run flag, because written as a marker
// it would cost an event and ~300 bytes a turn, taking the activity
// tool's 50-turn history (299.6 kB in bench/README.md) past its 300 KB
// bound. carry's tail rule and projection's are two halves kept in step
// by the replay corpus: every history projects to the log its run held,
// and its replay rebuilds, byte for byte, every payload that carries a
// journal (carry_test.go).
// After each step of the loop the shell publishes the log's new events to
// Config.Snapshots, in process and never in history, so activities it
// schedules on the same worker read them without a query; publishing is a
// side effect that changes nothing a command or a replay depends on.
package workflows
