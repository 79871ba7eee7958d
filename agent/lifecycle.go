package agent

import (
	"context"
	"fmt"

	"github.com/tetherdev/tether/signals"
)

// Cancel aborts the active turn; unless keepInbox, pending messages are
// discarded with outcome canceled.
func (h *Handle) Cancel(ctx context.Context, cause string, keepInbox bool) error {
	if err := signals.ValidateCause(cause); err != nil {
		return err
	}
	return signal(ctx, h, signals.CancelSignal, signals.Cancel{Cause: cause, KeepInbox: keepInbox})
}

// Dispose ends the agent and waits for its workflow to complete. Pending
// messages are discarded with outcome disposed; later messages get ErrClosed.
// With no worker on the agent's task queue the dispose is recorded (a
// signal) and the call fails with a *NoWorkerError instead of waiting.
func (h *Handle) Dispose(ctx context.Context, cause string) error {
	if err := signals.ValidateCause(cause); err != nil {
		return err
	}
	if err := signal(ctx, h, signals.DisposeSignal, signals.Dispose{Cause: cause}); err != nil {
		return err
	}
	wctx, stop := h.needsWorker(ctx)
	defer stop()
	var res signals.AgentResult
	err := h.c.GetWorkflow(wctx, h.ID, "").Get(wctx, &res)
	if nw := noWorker(wctx, err); nw != nil && ctx.Err() == nil {
		return fmt.Errorf("dispose agent %s: the dispose is recorded, and the agent ends once a worker takes it: %w", h.ID, nw)
	}
	if err != nil {
		return fmt.Errorf("dispose agent %s: %w", h.ID, err)
	}
	return nil
}

// RunMaintenance runs a maintenance task (signals.TaskCompact) in the
// agent's next true idle phase and returns when it is done (seed 003's
// runMaintenance). A message arriving meanwhile waits for it. Transient
// server failures are retried under one request ID, as for an
// acknowledged message; a *DeliveryUnknownError says when the deadline
// ended first. A task run by an attempt whose answer was lost answers
// Before and After -1 (unknown).
func (h *Handle) RunMaintenance(ctx context.Context, task signals.MaintenanceTask) (signals.Maintained, error) {
	out, err := deliver(ctx, h, request[signals.Maintain, signals.Maintained]{
		u: signals.MaintainUpdate, id: "maintain-" + newID(), in: signals.Maintain{Task: task},
	})
	if err == nil && out.Task == "" { // run by an attempt whose answer was lost: its figures are unknown
		out = signals.Maintained{Task: task, Before: -1, After: -1}
	}
	return out, err
}
