package workflows

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// lostAttempt is how an attempt whose worker died reaches the retry policy:
// a heartbeat timeout.
func lostAttempt() error { return temporal.NewHeartbeatTimeoutError() }

// flakyTool makes the first lost attempts of name end as faults, then
// answers; it counts the attempts it saw and keeps the last input.
func (h *harness) flakyTool(name string, lost int32, attempts *atomic.Int32, last *atomic.Value) {
	h.env.OnActivity(signals.ToolActivity, mock.Anything, mock.MatchedBy(func(in signals.ToolInput) bool {
		return in.Name == name
	})).Return(func(_ context.Context, in signals.ToolInput) (signals.ToolOutput, error) {
		last.Store(in)
		if attempts.Add(1) <= lost {
			return signals.ToolOutput{}, lostAttempt()
		}
		return signals.ToolOutput{CallID: in.CallID, Name: in.Name, Content: name + " ok"}, nil
	})
}

func TestToolAttemptsLostToFaultsRunAgainAndTheModelNeverSeesThem(t *testing.T) {
	h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": calls("fast")}))
	var attempts atomic.Int32
	var last atomic.Value
	// More than ToolAttempts; the test environment stops at 10 attempts.
	h.flakyTool("fast", 8, &attempts, &last)
	evs := h.run(tools, "go", time.Hour)

	require.EqualValues(t, 9, attempts.Load())
	results := only[eventlog.ToolResult](evs)
	require.Len(t, results, 1)
	require.False(t, results[0].IsError, results[0].Content)
	require.Equal(t, "fast ok", results[0].Content)
	require.EqualValues(t, DefaultToolAttempts, last.Load().(signals.ToolInput).Attempts,
		"the activity is told the budget of the tool's own failures")
}

func TestToolThatFaultsPastItsDeadlineTellsTheModelWhy(t *testing.T) {
	cfg := Config{ToolDeadline: 30 * time.Second}
	h := newHarnessWith(t, cfg, byStep(map[string]signals.ModelOutput{"1.1": calls("fast")}))
	var attempts atomic.Int32
	var last atomic.Value
	h.flakyTool("fast", 1<<30, &attempts, &last)
	evs := h.run(tools, "go", time.Hour)

	r := only[eventlog.ToolResult](evs)[0]
	require.True(t, r.IsError)
	require.Contains(t, r.Content, "did not complete within 30s: its attempts kept being interrupted")
	require.NotContains(t, r.Content, "timed out")
	// Backoffs of 1, 2, 4, 8 and 10 s: the deadline ends it, not a count
	// (the test environment would stop at 10 attempts).
	require.Greater(t, attempts.Load(), int32(DefaultToolAttempts))
	require.Less(t, attempts.Load(), int32(10))
}

func TestToolFailureOfTheToolItselfIsFinalAndShownToTheModel(t *testing.T) {
	h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": calls("fast")}))
	var attempts atomic.Int32
	h.env.OnActivity(signals.ToolActivity, mock.Anything, mock.Anything).
		Return(func(context.Context, signals.ToolInput) (signals.ToolOutput, error) {
			attempts.Add(1)
			return signals.ToolOutput{}, temporal.NewNonRetryableApplicationError(
				"tool fast call c0: quota exceeded (attempt 3 of 3)", signals.ToolFailure, nil)
		})
	evs := h.run(tools, "go", time.Hour)

	require.EqualValues(t, 1, attempts.Load(), "the activity's verdict is final")
	r := only[eventlog.ToolResult](evs)[0]
	require.True(t, r.IsError)
	require.Equal(t, eventlog.ToolFailed, r.Outcome)
	require.Contains(t, r.Content, "quota exceeded (attempt 3 of 3)")
}

func TestModelAttemptLostToAFaultRunsAgainWithoutAFailedAttempt(t *testing.T) {
	var attempts atomic.Int32
	h := newHarness(t, func(in signals.ModelInput) (signals.ModelOutput, error) {
		if attempts.Add(1) <= 3 {
			return signals.ModelOutput{}, lostAttempt()
		}
		return answer("hello"), nil
	})
	evs := h.run(tools, "go", time.Hour)

	require.EqualValues(t, 4, attempts.Load())
	require.Empty(t, only[eventlog.AssistantAttempt](evs), "a fault is not a failed model call")
	require.Len(t, only[eventlog.TurnStart](evs), 1, "no retry turn")
	msgs := only[eventlog.AssistantMessage](evs)
	require.Len(t, msgs, 1)
	require.Equal(t, "hello", msgs[0].Text)
}

func TestModelCallFailureIsRecordedOnceAndNotRetriedByTemporal(t *testing.T) {
	var attempts atomic.Int32
	h := newHarness(t, func(in signals.ModelInput) (signals.ModelOutput, error) {
		attempts.Add(1)
		return signals.ModelOutput{}, failWith(eventlog.FailureAuth, 0)
	})
	evs := h.run(tools, "go", time.Hour)

	require.EqualValues(t, 1, attempts.Load())
	failed := only[eventlog.AssistantAttempt](evs)
	require.Len(t, failed, 1)
	require.Equal(t, eventlog.FailureAuth, failed[0].Failure.Kind)
}

func TestCallOptionsRetryFaultsWithoutLimitWithinADeadline(t *testing.T) {
	cfg := Config{}.withDefaults()
	for name, o := range map[string]struct {
		start, heartbeat, deadline time.Duration
		policy                     *temporal.RetryPolicy
	}{
		"model": {cfg.modelOptions("m", "").StartToCloseTimeout, cfg.modelOptions("m", "").HeartbeatTimeout,
			cfg.modelOptions("m", "").ScheduleToCloseTimeout, cfg.modelOptions("m", "").RetryPolicy},
		"tool": {cfg.toolOptions("t", "").StartToCloseTimeout, cfg.toolOptions("t", "").HeartbeatTimeout,
			cfg.toolOptions("t", "").ScheduleToCloseTimeout, cfg.toolOptions("t", "").RetryPolicy},
	} {
		t.Run(name, func(t *testing.T) {
			require.Zero(t, o.policy.MaximumAttempts, "faults never use up attempts")
			require.Equal(t, 5*time.Second, o.heartbeat, "a dead worker is noticed within seconds")
			require.Equal(t, 10*time.Minute+signals.ActivityGrace, o.start, "the call's own limit, plus the grace to report it")
			require.GreaterOrEqual(t, o.deadline, time.Hour)
			require.GreaterOrEqual(t, o.deadline, 2*DefaultToolAttempts*o.start)
		})
	}
}
