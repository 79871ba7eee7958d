// Package workflows is the agent workflow: the loop of seeds 000 and 002 as
// a pure core (Core: the session log, folded state and the decision Next,
// which returns commands as data) under a thin Temporal shell (Agent.Run:
// handlers, activity execution, search attributes, journaling).
//
// It must stay deterministic: no time.Now, time.Sleep, goroutines, native
// channels or select, map iteration, randomness or environment reads; only
// the workflow package's equivalents. It never imports activities, fx,
// net/http or a provider SDK; activities are named by their durable names.
//
// History is the session log. The model and tool activities get references
// into the log, never its content; every event is journaled into history
// exactly once (in the next activity input, in a side-effect marker when the
// agent goes idle, or in the workflow result) in its stripped form, and
// content stays where it first entered history. See package projection.
package workflows
