package agent

import (
	"context"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
)

// Retrying is one of the agent's calls (an activity: a model round trip, a
// tool call) that failed and is being tried again, as Temporal's
// DescribeWorkflowExecution shows it.
type Retrying struct {
	Activity string `json:"activity"` // the activity type
	ID       string `json:"id"`       // the activity ID
	Attempt  int32  `json:"attempt"`  // the attempt running or next
	// State is scheduled (waiting for its next attempt or a worker) or
	// started (the attempt runs).
	State string `json:"state"`
	// LastFailure is the message of the last attempt's failure.
	LastFailure string `json:"last_failure"`
	// NextAttempt is when the next attempt is scheduled; zero while one runs.
	NextAttempt time.Time `json:"next_attempt,omitzero"`
}

// Retrying reads the agent's calls that are being retried: the pending
// activities of its latest run past their first attempt, or with a failure
// recorded. A call that has not failed yet is not listed; a closed agent
// has none. Calls reads these with the calls' progress.
func (h *Handle) Retrying(ctx context.Context) ([]Retrying, error) {
	calls, err := h.Calls(ctx)
	return calls.Retrying, err
}

func retrying(a *workflowpb.PendingActivityInfo) Retrying {
	r := Retrying{
		Activity: a.GetActivityType().GetName(), ID: a.GetActivityId(), Attempt: a.GetAttempt(),
		State:       activityState(a.GetState()),
		LastFailure: a.GetLastFailure().GetMessage(),
	}
	if t := a.GetNextAttemptScheduleTime(); t != nil {
		r.NextAttempt = t.AsTime()
	}
	return r
}

// activityState names a pending activity's state: scheduled, started,
// cancel_requested, paused, ...
func activityState(st enumspb.PendingActivityState) string {
	return lower(enumspb.PendingActivityState_name[int32(st)], "PENDING_ACTIVITY_STATE_")
}
