package signals

import "strings"

// Ended is how a closed agent ended: the one word every view uses for it
// (starter ls, status and tree, the console's list, tree and agent page).
// An open agent's status is eventlog.Status (idle, running); "closed" names
// the set of ended agents (a filter), never one agent's status.
type Ended string

// How an agent ends, by its last run's close.
const (
	// EndedDisposed: the workflow completed, which it does only once the
	// agent was disposed. The normal end.
	EndedDisposed Ended = "disposed"
	// EndedFailed: the workflow failed (invalid options, a corrupt log).
	EndedFailed Ended = "failed"
	// EndedTerminated: an operator or the server terminated it.
	EndedTerminated Ended = "terminated"
	// EndedCanceled: a cancellation request ended it.
	EndedCanceled Ended = "canceled"
	// EndedTimedOut: its execution timeout passed.
	EndedTimedOut Ended = "timed-out"
)

// EndedFrom reads a closed execution's status as Temporal names it, in
// any case and form ("WORKFLOW_EXECUTION_STATUS_COMPLETED", "Completed",
// "completed", "timed_out", as ChildEnded records it), as the word views
// show; "" for an open or continued run, or a word it does not know.
func EndedFrom(status string) Ended {
	s := strings.ToLower(strings.TrimPrefix(status, "WORKFLOW_EXECUTION_STATUS_"))
	switch strings.NewReplacer("_", "", "-", "", " ", "").Replace(s) {
	case "completed", "disposed":
		return EndedDisposed
	case "failed":
		return EndedFailed
	case "terminated":
		return EndedTerminated
	case "canceled", "cancelled":
		return EndedCanceled
	case "timedout":
		return EndedTimedOut
	}
	return ""
}
