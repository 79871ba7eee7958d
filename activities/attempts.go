package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/signals"
)

// A call's own failures against faults (see signals.ToolFailure). Temporal
// runs the tool and summary activities without an attempt limit, so a fault
// (the worker died or lost the server, the attempt timed out on its
// heartbeat) just runs again. The activity counts the failures of the
// call's own work itself and ends the call once they reach its budget.

// attemptRecord is the heartbeat detail that carries the count from one
// attempt to the next: Temporal keeps an attempt's last heartbeat details
// and hands them to the next attempt, also after a heartbeat timeout. Every
// heartbeat carries it, so an attempt that dies keeps the count it was given.
// A tool call's heartbeats also carry its latest progress, if it reported
// any; the count is read alone, so progress never changes it.
// A tool's checkpoint (tools.SaveCheckpoint) rides on it too, so the next
// attempt resumes the work the tool started.
type attemptRecord struct {
	Failures   int32                 `json:"failures"`
	Progress   *signals.ToolProgress `json:"progress,omitempty"`
	Checkpoint json.RawMessage       `json:"checkpoint,omitempty"`
}

// MaxErrorBytes bounds the text of a call's own failure: it crosses the
// activity edge, the last one is recorded in history, and the model reads it.
const MaxErrorBytes = 8 << 10

// priorFailures is how many earlier attempts of this call failed on their
// own.
func priorFailures(ctx context.Context) int32 {
	return priorRecord(ctx).Failures
}

// priorRecord is what the call's earlier attempts left: the count of
// their own failures and the tool's checkpoint, if any.
func priorRecord(ctx context.Context) attemptRecord {
	if info := activity.GetInfo(ctx); info.IsLocalActivity {
		// A local activity has no heartbeat; its attempts start over with
		// the workflow task, so a lost task never counts and every earlier
		// attempt failed on its own.
		return attemptRecord{Failures: max(info.Attempt-1, 0)}
	}
	var r attemptRecord
	if !activity.HasHeartbeatDetails(ctx) || activity.GetHeartbeatDetails(ctx, &r) != nil {
		return attemptRecord{}
	}
	r.Failures, r.Progress = max(r.Failures, 0), nil
	return r
}

// budget is a call's attempt budget, DefaultAttempts when unset.
func budget(attempts int32) int32 {
	if attempts <= 0 {
		return signals.DefaultAttempts
	}
	return attempts
}

// ownFailure counts one failure of the call's own work, records the count
// for the next attempt (after stopping the heartbeat loop, so no older count
// overwrites it) and reports the failure as type typ: retryable, after a
// backoff that grows with the count, until the count reaches the budget;
// then final.
func ownFailure(ctx context.Context, stop func(), prior, attempts int32, typ, msg string, details ...any) error {
	return ownFailureKeeping(ctx, stop, prior, attempts, nil, typ, msg, details...)
}

// ownFailureKeeping is ownFailure that keeps the tool's checkpoint for the
// next attempt.
func ownFailureKeeping(ctx context.Context, stop func(), prior, attempts int32, checkpoint json.RawMessage, typ, msg string, details ...any) error {
	n := prior + 1
	stop()
	activity.RecordHeartbeat(ctx, attemptRecord{Failures: n, Checkpoint: checkpoint})
	msg = tools.Truncate(msg, MaxErrorBytes)
	if n >= attempts {
		msg = fmt.Sprintf("%s (attempt %d of %d)", msg, n, attempts)
		return temporal.NewApplicationErrorWithOptions(msg, typ, temporal.ApplicationErrorOptions{
			NonRetryable: true, Details: details,
		})
	}
	return temporal.NewApplicationErrorWithOptions(msg, typ, temporal.ApplicationErrorOptions{
		NextRetryDelay: ownBackoff(n), Details: details,
	})
}

// ownBackoff is the wait before the attempt after the n-th own failure:
// one second, doubling, at most 30 seconds. Faults back off by the retry
// policy instead, which keeps them short.
func ownBackoff(n int32) time.Duration {
	if n > 5 {
		return 30 * time.Second
	}
	return min(time.Second<<(n-1), 30*time.Second)
}

// ownContext bounds the attempt's own work by the call's time limit: the
// attempt's StartToClose timeout less signals.ActivityGrace, so running out
// of time is reported by the activity as the call's own failure, and
// Temporal's timeout only ends an attempt that could not report (a wedged
// worker, a fault). A local activity keeps its context: its one timeout
// covers all its attempts.
func ownContext(ctx context.Context) (context.Context, time.Duration, context.CancelFunc) {
	info := activity.GetInfo(ctx)
	limit := info.StartToCloseTimeout - signals.ActivityGrace
	if info.IsLocalActivity || limit <= 0 {
		c, cancel := context.WithCancel(ctx)
		return c, 0, cancel
	}
	c, cancel := context.WithTimeout(ctx, limit)
	return c, limit, cancel
}
