package activities

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/activity"
)

// DefaultHeartbeatEvery is how often a running activity records a
// heartbeat. Recording is local: the SDK sends at most one heartbeat RPC per
// throttle interval (the worker's MaxHeartbeatThrottleInterval, at most 80%
// of the heartbeat timeout), carrying the latest details, so recording often
// costs nothing on the wire and keeps what is sent fresh.
const DefaultHeartbeatEvery = time.Second

// beat is a running heartbeat loop. Every tick records the latest details
// given (set), so details that change while the attempt runs (a call's
// progress) reach Temporal within a tick and are never overwritten by
// older ones. Safe for concurrent use.
type beat struct {
	latest atomic.Pointer[[]any]
	stop   func()
}

// heartbeat records a heartbeat (with details, if any) every interval until
// stop is called. It is what lets cancellation of the turn reach a running
// activity, what tells Temporal the worker is alive, and what publishes a
// stream's locator or a call's failure count. stop may be called more than
// once; it returns once no heartbeat of this loop can be recorded any more,
// so a caller may then record final details of its own.
func heartbeat(ctx context.Context, every time.Duration, details ...any) (stop func()) {
	return startBeat(ctx, every, details...).stop
}

// startBeat is heartbeat whose details can change (beat.set).
func startBeat(ctx context.Context, every time.Duration, details ...any) *beat {
	if every <= 0 {
		every = DefaultHeartbeatEvery
	}
	b := &beat{}
	b.latest.Store(&details)
	done, exited := make(chan struct{}), make(chan struct{})
	// The SDK sends a first heartbeat at once and waits for the server's
	// answer: with details to publish that is the point; without, it
	// would only delay the work by a round trip, so the first tick sends it.
	if len(details) > 0 {
		activity.RecordHeartbeat(ctx, details...)
	}
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
				activity.RecordHeartbeat(ctx, *b.latest.Load()...)
			}
		}
	}()
	var once sync.Once
	b.stop = func() {
		once.Do(func() { close(done) })
		<-exited
	}
	return b
}

// set makes details those of the loop's next heartbeats. It does not
// record them itself, so a tool that reports often costs one record a tick.
func (b *beat) set(details ...any) { b.latest.Store(&details) }
