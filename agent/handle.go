package agent

import (
	"context"
	"fmt"
	"net/http"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/signals"
)

// Handle is one agent. It is cheap, holds no state beyond IDs and its
// Client's connections, and is safe for concurrent use.
type Handle struct {
	c       client.Client
	dc      converter.DataConverter // c's, for payloads read outside c
	streams *http.Client            // reads live token streams; nil: defaultStreamClient
	watches *watches                // the Client's history long polls
	queue   string                  // the agent's task queue; "": read when needed
	ID      string
	RunID   string // the run the handle was made for; operations follow the chain
}

// updateOnce sends u once and waits for its outcome; errors are Temporal's.
func updateOnce[In, Out any](ctx context.Context, h *Handle, u signals.Update[In, Out], id string, in In) (Out, error) {
	var out Out
	handle, err := h.c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: h.ID, UpdateID: id, UpdateName: u.Name, Args: []any{in},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = handle.Get(ctx, &out)
	}
	return out, err
}

func signal[T any](ctx context.Context, h *Handle, s signals.Signal[T], in T) error {
	if err := h.c.SignalWorkflow(ctx, h.ID, "", s.Name, in); err != nil {
		return h.mapErr(ctx, s.Name, err)
	}
	return nil
}

// mapErr turns Temporal errors into this package's typed errors: a missing
// workflow is ErrNotFound, a closed one a *ClosedError, a validator's
// rejection its sentinel.
func (h *Handle) mapErr(ctx context.Context, op string, err error) error {
	if !isNotFound(err) {
		return fmt.Errorf("%s agent %s: %w", op, h.ID, fromRejection(err))
	}
	desc, derr := h.c.DescribeWorkflowExecution(ctx, h.ID, "")
	if derr != nil {
		return fmt.Errorf("%s: %w: %s", op, ErrNotFound, h.ID)
	}
	info := desc.GetWorkflowExecutionInfo()
	return fmt.Errorf("%s: %w", op, h.closedErr(ctx, info.GetExecution().GetRunId(), info.GetStatus()))
}
