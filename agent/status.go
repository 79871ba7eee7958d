package agent

import (
	"context"
	"errors"
	"time"

	"github.com/tetherdev/tether/signals"
)

// Status reads idle/running, turn, step and both inbox lists.
//
// A disposed agent reads as it last was, Disposed set. An agent that
// ended otherwise (failed, terminated, timed out, canceled) reads as it
// last was with nothing in flight (idle, no turn open, nothing due or
// waited for: what its status query would still answer is stale), beside
// a *ClosedError saying how and why it ended. With no worker on the
// agent's task queue, it reads the status its search attributes hold
// beside a *NoWorkerError (FromHistory set).
func (h *Handle) Status(ctx context.Context) (signals.StatusView, error) {
	st, err := h.status(ctx, notReadyOnly)
	if nw := (*NoWorkerError)(nil); errors.As(err, &nw) && !errors.Is(err, ErrClosed) {
		return h.attrStatus(ctx, nw)
	}
	return st, err
}

// WaitIdle returns once the agent has no open turn and no due work (seed
// 003's whenIdle), or has been disposed. It asks the status query, then
// waits on the agent's history with a long poll (shared by all waiters on
// the agent through this Client) and asks again when a workflow task may
// have left the agent idle: within milliseconds of it, and without writing
// anything to the agent's history. The wait-idle update is the push
// alternative for callers that prefer it.
func (h *Handle) WaitIdle(ctx context.Context, opts ...WaitOption) (signals.StatusView, error) {
	var o waitOptions
	for _, f := range opts {
		f(&o)
	}
	w := h.watches.acquire(h.ID)
	defer w.release()
	for {
		_, settled := w.wait()
		// A query fails for a while when no worker holds the agent (a
		// worker restart): queryRun asks again until the caller's deadline.
		st, err := h.status(ctx, untilDone)
		switch {
		case err != nil:
			return st, err
		case st.Idle() || st.Disposed || o.orBlocked && st.Blocked():
			return st, nil
		}
		if err := waitFor(ctx, settled, recheck); err != nil {
			return st, err
		}
	}
}

// waitFor waits for ch, at most d; it fails only when ctx ends.
func waitFor(ctx context.Context, ch <-chan struct{}, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
	case <-t.C:
	}
	return nil
}

// WaitOption changes what WaitIdle waits for.
type WaitOption func(*waitOptions)

type waitOptions struct{ orBlocked bool }

// OrBlocked also returns when the open turn waits for a person (an
// approval or an ask_human answer): StatusView.Pending says what for.
func OrBlocked() WaitOption { return func(o *waitOptions) { o.orBlocked = true } }

// Polling bounds: the backoff of a query asked again, and how often a
// waiter asks again when its long poll told it nothing (a safety net).
const (
	minPoll = 10 * time.Millisecond
	maxPoll = 250 * time.Millisecond
	recheck = 5 * time.Second
)
