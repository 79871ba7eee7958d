package projection

import (
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/tetherdev/tether/signals"
)

// Ending is how and why an agent's chain ended, read from its last run's
// close event: How in the views' one vocabulary, Why the failure's message
// or the termination's reason ("" for a disposed agent: its log says the
// dispose's cause), At when.
type Ending struct {
	How signals.Ended
	Why string
	At  time.Time
}

// EndedAs names a closed execution status in the views' vocabulary, ""
// for an open or continued one.
func EndedAs(st enumspb.WorkflowExecutionStatus) signals.Ended {
	return signals.EndedFrom(st.String())
}

// EndingOf reads how the run whose history is events ended; false while it
// is open or when it continued as new.
func EndingOf(events []*historypb.HistoryEvent) (Ending, bool) {
	if len(events) == 0 {
		return Ending{}, false
	}
	last := events[len(events)-1]
	e := Ending{At: last.GetEventTime().AsTime()}
	switch last.GetEventType() {
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
		e.How = signals.EndedDisposed
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
		e.How = signals.EndedFailed
		e.Why = failureText(last.GetWorkflowExecutionFailedEventAttributes().GetFailure())
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
		e.How = signals.EndedTerminated
		e.Why = last.GetWorkflowExecutionTerminatedEventAttributes().GetReason()
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
		e.How = signals.EndedCanceled
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
		e.How = signals.EndedTimedOut
	default:
		return Ending{}, false
	}
	return e, true
}

// failureText is a failure's message and its causes' ("a: b"), leaving
// out a cause whose text the message already holds.
func failureText(f *failurepb.Failure) string {
	text := f.GetMessage()
	for c := f.GetCause(); c != nil; c = c.GetCause() {
		if m := c.GetMessage(); m != "" && !strings.Contains(text, m) {
			text += ": " + m
		}
	}
	return text
}
