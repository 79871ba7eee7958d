package chaos

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tetherdev/tether/signals"
)

// Bounds of one client call and of the pause between tries.
const (
	callTimeout = 30 * time.Second
	minBackoff  = 200 * time.Millisecond
	maxBackoff  = 2 * time.Second
)

// persist calls op until it succeeds or fails for good, riding out a dead
// worker (a query or update waits for one) and a server that is down (every
// call fails until it serves again). Each try has its own deadline, so an
// update whose outcome is unknown is sent again; op must make a resend safe
// (the same message ID). It returns the number of tries.
func persist(ctx context.Context, op func(context.Context) error) (int, error) {
	delay := minBackoff
	for tries := 1; ; tries++ {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		err := op(cctx)
		cancel()
		if err == nil || final(err) {
			return tries, err
		}
		select {
		case <-ctx.Done():
			return tries, fmt.Errorf("gave up after %d tries: %w (last: %v)", tries, ctx.Err(), err)
		case <-time.After(delay):
		}
		delay = min(2*delay, maxBackoff)
	}
}

// final reports whether err will not go away by trying again: the client
// or the agent refused the input itself. Everything else (unavailable,
// deadline, not found while a run continues as new, "ask again") is
// retried until the caller's deadline.
func final(err error) bool {
	for _, f := range []error{signals.ErrEmptyMessage, signals.ErrMessageTooLarge, signals.ErrInvalidID,
		signals.ErrInvalidList, signals.ErrInvalidUTF8, signals.ErrCauseTooLarge, signals.ErrDisposed,
		signals.ErrInvalidOptions, signals.ErrInvalidSpawn} {
		if errors.Is(err, f) {
			return true
		}
	}
	return false
}
