package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
)

// DefaultHeartbeatEvery is how often a running activity heartbeats. It is
// well under the workflow's heartbeat timeouts, so a silent model that is
// thinking is not timed out, while a dead worker is noticed.
const DefaultHeartbeatEvery = 5 * time.Second

// heartbeat records a heartbeat (with details, if any) every interval until
// stop is called. It is what lets cancellation of the turn reach a running
// activity, and what publishes a stream's locator.
func heartbeat(ctx context.Context, every time.Duration, details ...any) (stop func()) {
	if every <= 0 {
		every = DefaultHeartbeatEvery
	}
	done := make(chan struct{})
	activity.RecordHeartbeat(ctx, details...)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx, details...)
			}
		}
	}()
	return func() { close(done) }
}
