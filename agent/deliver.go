package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Bounds of an acknowledged send's retries: the backoff between attempts,
// and how long it goes on trying again when the caller's ctx has no
// deadline.
const (
	minResend     = 50 * time.Millisecond
	maxResend     = 2 * time.Second
	deliveryLimit = time.Minute
)

// request is one update deliver sends: its ID, the same in every attempt,
// and its argument. message is the message's ID for a message, "" for a
// request of another kind.
type request[In, Out any] struct {
	u       signals.Update[In, Out]
	id      string
	in      In
	message eventlog.MessageID
}

// deliver sends r's update, again and again under the same update ID
// while the server answers with a transient failure or the agent is busy
// (signals.ErrBusy, after signals.BusyRetryAfter), until it is known
// delivered or refused or ctx ends; a busy agent's refusal at the end is
// returned as it is (the request was not delivered). Temporal answers a
// repeated update ID from the run that took it, and the agent refuses an
// ID it already accepted (signals.ErrDuplicateID), so no attempt delivers
// it twice; a duplicate after an attempt whose outcome was unknown is that
// attempt's delivery, reported as success with a zero result (unknown).
// It waits for a worker no longer than needsWorker lets it.
func deliver[In, Out any](ctx context.Context, h *Handle, r request[In, Out]) (Out, error) {
	wctx, stop := h.needsWorker(ctx)
	defer stop()
	out, err := deliverServed(wctx, h, r)
	var unknown *DeliveryUnknownError
	if nw := noWorker(wctx, err); nw != nil && ctx.Err() == nil && errors.As(err, &unknown) {
		unknown.Err = fmt.Errorf("%s agent %s: %w", r.u.Name, h.ID, nw)
	}
	return out, err
}

func deliverServed[In, Out any](ctx context.Context, h *Handle, r request[In, Out]) (Out, error) {
	var zero Out
	giveUp := retryDeadline(ctx)
	uncertain := false // an earlier attempt's outcome is unknown
	for attempt, pause := 1, minResend; ; attempt, pause = attempt+1, min(2*pause, maxResend) {
		out, err := updateOnce(ctx, h, r.u, r.id, r.in)
		wait := pause
		switch {
		case err == nil:
			return out, nil
		case attempt > 1 && isDuplicate(err):
			return zero, nil
		case isBusy(err): // refused, so not delivered: wait as long as the agent asks
			wait = max(pause, signals.BusyRetryAfter)
			if !uncertain && (ctx.Err() != nil || time.Now().Add(wait).After(giveUp)) {
				return out, h.mapErr(ctx, r.u.Name, err)
			}
		case !transient(err) && !timedOut(err):
			return out, h.mapErr(ctx, r.u.Name, err)
		default:
			uncertain = true
		}
		if ctx.Err() != nil || time.Now().Add(wait).After(giveUp) || pauseFor(ctx, wait) != nil {
			return zero, r.unknown(attempt, fmt.Errorf("%s agent %s: %w", r.u.Name, h.ID, err))
		}
	}
}

// unknown is r's DeliveryUnknownError after attempts ending with err.
func (r request[In, Out]) unknown(attempts int, err error) *DeliveryUnknownError {
	e := &DeliveryUnknownError{MessageID: r.message, Attempts: attempts, Err: err}
	if r.message == "" {
		e.MessageID, e.Request = eventlog.MessageID(r.id), r.u.Name
	}
	return e
}

// isBusy reports the workflow's refusal of a message while it holds too
// much (signals.ErrBusy): the same message may be taken a moment later.
func isBusy(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == signals.RejectBusy
}

// retryDeadline is when deliver stops trying again: ctx's deadline, or
// deliveryLimit from now when ctx has none. An attempt itself waits as long
// as ctx lets it (for a worker to take the update, say).
func retryDeadline(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(deliveryLimit)
}

// pauseFor waits d; it fails when ctx ends first.
func pauseFor(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// isDuplicate reports the workflow's refusal of a message ID it accepted.
func isDuplicate(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && errors.Is(signals.RejectionError(app.Type()), signals.ErrDuplicateID)
}

// acceptedThenClosed is the server's failure of an update the run accepted
// but closed (continued as new) before completing: the next run answers a
// resend.
const acceptedThenClosed = "AcceptedUpdateCompletedWorkflow"

// transient reports a failure after which the same update may succeed: the
// server refusing updates while the run's workflow task keeps failing
// (WorkflowNotReady), a run closing to continue as new or a busy server
// (ResourceExhausted, but for a message too large to send), an unreachable
// server (Unavailable, Aborted), and an update accepted by a run that then
// continued as new.
func transient(err error) bool {
	var (
		wnr *serviceerror.WorkflowNotReady
		re  *serviceerror.ResourceExhausted
		un  *serviceerror.Unavailable
		ab  *serviceerror.Aborted
		app *temporal.ApplicationError
	)
	switch {
	case errors.As(err, &wnr), errors.As(err, &un), errors.As(err, &ab):
		return true
	case errors.As(err, &re):
		return !strings.Contains(re.Message, "message larger than max")
	case errors.As(err, &app):
		return app.Type() == acceptedThenClosed
	}
	return false
}

// timedOut reports an attempt that ran out of time or was canceled: by
// the caller's ctx (deliver then stops) or by a deadline of its own (the
// server's, or the SDK's bound on one long poll), after which it tries
// again.
func timedOut(err error) bool {
	var (
		de *serviceerror.DeadlineExceeded
		ca *serviceerror.Canceled
		to *client.WorkflowUpdateServiceTimeoutOrCanceledError
	)
	return errors.As(err, &de) || errors.As(err, &ca) || errors.As(err, &to) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}
