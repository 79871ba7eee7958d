package agent

import (
	"context"
	"errors"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/temporal"
)

// closedErr says how run ("" = the latest) ended, st, and why: a failed
// run's failure (decoded by the client's converter), a terminated run's
// reason and a continued run's next run from its close event. What cannot
// be read leaves Reason empty.
func (h *Handle) closedErr(ctx context.Context, runID string, st enumspb.WorkflowExecutionStatus) *ClosedError {
	e := &ClosedError{Agent: h.ID, How: endedAs(st), status: st}
	switch st {
	case enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:
		var app *temporal.ApplicationError
		if err := h.c.GetWorkflow(ctx, h.ID, runID).Get(ctx, nil); errors.As(err, &app) {
			e.Reason = app.Message()
		}
	case enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		if ev := h.closeEvent(ctx, runID); ev != nil {
			if a := ev.GetWorkflowExecutionTerminatedEventAttributes(); a != nil {
				e.Reason = a.GetReason()
			}
			if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
				e.Reason = "in run " + a.GetNewExecutionRunId()
			}
		}
	}
	return e
}

// closeEvent is the event that closed run; nil when it cannot be read.
func (h *Handle) closeEvent(ctx context.Context, runID string) *historypb.HistoryEvent {
	it := h.c.GetWorkflowHistory(ctx, h.ID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	var last *historypb.HistoryEvent
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil
		}
		last = ev
	}
	return last
}
