package agent

import (
	"context"
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
)

// How a call that needs a worker watches for one: it first looks after
// workerCheckAfter (a call a worker answers costs nothing more), then
// every workerCheckEvery while no worker polls and every workerRecheck
// while one does; it fails once the queue has had no poller for
// noWorkerGrace, so a worker that is starting as the call begins is never
// given up on. A poller counts while it polled within pollerFresh.
const (
	workerCheckAfter = time.Second
	workerCheckEvery = time.Second
	workerRecheck    = 10 * time.Second
	noWorkerGrace    = 4 * time.Second
	pollerFresh      = 90 * time.Second
)

// needsWorker returns ctx for a call that a worker must answer: it is
// canceled, with a *NoWorkerError as its cause (noWorker), once no worker
// has polled the agent's task queue for noWorkerGrace. Call stop when the
// call is over.
func (h *Handle) needsWorker(ctx context.Context) (wctx context.Context, stop func()) {
	wctx, cancel := context.WithCancelCause(ctx)
	go h.watchWorker(wctx, cancel)
	return wctx, func() { cancel(nil) }
}

// watchWorker fails ctx once the agent's task queue has had no poller for
// noWorkerGrace; a queue it cannot describe (the agent's or the queue's
// description fails) never fails the call.
func (h *Handle) watchWorker(ctx context.Context, fail context.CancelCauseFunc) {
	t := time.NewTimer(workerCheckAfter)
	defer t.Stop()
	queue := h.queue
	var missing time.Time // since when no worker polls; zero while one does
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if queue == "" {
			queue = h.taskQueue(ctx)
		}
		polled, known := h.polled(ctx, queue)
		next := workerCheckEvery
		switch {
		case !known || polled:
			missing, next = time.Time{}, workerRecheck
		case missing.IsZero():
			missing = time.Now()
		case time.Since(missing) >= noWorkerGrace:
			fail(&NoWorkerError{Agent: h.ID, TaskQueue: queue})
			return
		}
		t.Reset(next) // a queue it cannot describe is asked again as seldom as a served one
	}
}

// taskQueue is the task queue of the agent's latest run; "" when it
// cannot be read.
func (h *Handle) taskQueue(ctx context.Context) string {
	desc, err := h.c.DescribeWorkflowExecution(ctx, h.ID, "")
	if err != nil {
		return ""
	}
	return desc.GetExecutionConfig().GetTaskQueue().GetName()
}

// polled reports whether a worker polled queue's workflow tasks within
// pollerFresh; known is false when that cannot be told.
func (h *Handle) polled(ctx context.Context, queue string) (polled, known bool) {
	if queue == "" {
		return false, false
	}
	resp, err := h.c.DescribeTaskQueue(ctx, queue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
	if err != nil {
		return false, false
	}
	for _, p := range resp.GetPollers() {
		if time.Since(p.GetLastAccessTime().AsTime()) < pollerFresh {
			return true, true
		}
	}
	return false, true
}

// noWorker returns the *NoWorkerError that ended wctx, when one did and
// the call failed; nil otherwise.
func noWorker(wctx context.Context, err error) *NoWorkerError {
	var nw *NoWorkerError
	if err != nil && errors.As(context.Cause(wctx), &nw) {
		return nw
	}
	return nil
}
