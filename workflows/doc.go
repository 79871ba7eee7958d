// Package workflows is the agent workflow: the thin Temporal shell around
// package loop. It registers the signals, updates and queries and turns
// them into loop requests; it executes the commands the loop returns
// (activities, local activities, timers, hook chains, journal markers,
// Continue-As-New) and feeds their outcomes back; it keeps the search
// attributes and current details, and records once per run the worker
// settings that decide commands, the loop's rules among them, so a worker
// upgrade replays every running agent as it ran.
//
// It decides nothing about turns, steps or the inbox: every rule lives in
// package loop. It adds only what the loop cannot see: update validators
// refuse a message, busy, while the run's history would pass
// signals.MaxRunHistoryBytes (replay runs no validator, so this decides no
// command), and under rules 3 a child's reports go to its parent one at a
// time, since Temporal does not keep two signals in the order sent. It must stay deterministic: no time.Now, time.Sleep,
// goroutines, native channels or select, map iteration, randomness or
// environment reads; only the workflow package's equivalents (checked by
// workflowcheck). It never imports activities, fx, net/http or a provider
// SDK; activities are named by their durable names.
//
// History is the session log. The model and tool activities get references
// into the log, never its content; every event is journaled into history
// exactly once (in the next activity input, in a side-effect marker when the
// agent goes idle, or in the workflow result) in its stripped form, and
// content stays where it first entered history; a turn that ends the
// plainest way writes no marker (idletail.go). See package projection.
// After each step of the loop the shell publishes the log's new events to
// Config.Snapshots, in process and never in history, so activities it
// schedules on the same worker read them without a query; publishing is a
// side effect that changes nothing a command or a replay depends on.
package workflows
