package activities

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
)

// DefaultHeartbeatEvery is how often a running activity records a
// heartbeat. Recording is local: the SDK sends at most one heartbeat RPC per
// throttle interval (the worker's MaxHeartbeatThrottleInterval, at most 80%
// of the heartbeat timeout), carrying the latest details, so recording often
// costs nothing on the wire and keeps what is sent fresh.
const DefaultHeartbeatEvery = time.Second

// heartbeat records a heartbeat (with details, if any) every interval until
// stop is called. It is what lets cancellation of the turn reach a running
// activity, what tells Temporal the worker is alive, and what publishes a
// stream's locator or a call's failure count. stop may be called more than
// once; it returns once no heartbeat of this loop can be recorded any more,
// so a caller may then record final details of its own.
func heartbeat(ctx context.Context, every time.Duration, details ...any) (stop func()) {
	if every <= 0 {
		every = DefaultHeartbeatEvery
	}
	done, exited := make(chan struct{}), make(chan struct{})
	activity.RecordHeartbeat(ctx, details...)
	go func() {
		defer close(exited)
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
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		<-exited
	}
}
