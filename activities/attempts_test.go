package activities_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// failures is the heartbeat detail the tool and summary activities carry
// from attempt to attempt, in its wire form.
type failures struct {
	Failures int32 `json:"failures"`
}

// heartbeats is a test activity environment that keeps the details of the
// last heartbeat an activity recorded.
type heartbeats struct {
	env *testsuite.TestActivityEnvironment

	mu      sync.Mutex
	details converter.EncodedValues
}

func listenHeartbeats(t *testing.T) *heartbeats {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	h := &heartbeats{env: s.NewTestActivityEnvironment()}
	h.env.SetOnActivityHeartbeatListener(func(_ *activity.Info, d converter.EncodedValues) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.details = d
	})
	return h
}

// last decodes the last heartbeat's details.
func (h *heartbeats) last() failures {
	h.mu.Lock()
	defer h.mu.Unlock()
	var f failures
	if h.details != nil && h.details.HasValues() {
		_ = h.details.Get(&f)
	}
	return f
}

func runToolIn(t *testing.T, env *testsuite.TestActivityEnvironment, tool *activities.Tool, in signals.ToolInput) (signals.ToolOutput, error) {
	t.Helper()
	require.NoError(t, tool.Validate())
	env.RegisterActivity(tool.Run)
	val, err := env.ExecuteActivity(tool.Run, in)
	if err != nil {
		return signals.ToolOutput{}, err
	}
	var out signals.ToolOutput
	require.NoError(t, val.Get(&out))
	return out, nil
}

func echoLog() *fakeToolCalls {
	return &fakeToolCalls{req: eventlog.ToolCallRequest{ID: echoInput.CallID, Name: "echo", Arguments: []byte(`{"text":"hi"}`)}}
}

func TestToolOwnFailureIsCountedAndRetriedUntilItsAttemptsAreUsed(t *testing.T) {
	tests := []struct {
		name      string
		prior     *failures // heartbeat details left by earlier attempts; nil: none
		attempts  int32
		wantCount int32
		final     bool
		wantDelay time.Duration
	}{
		{"first failure of three", nil, 3, 1, false, time.Second},
		{"second failure of three backs off longer", &failures{1}, 3, 2, false, 2 * time.Second},
		{"third failure of three is final", &failures{2}, 3, 3, true, 0},
		{"no budget in the input means the default of three", &failures{2}, 0, 3, true, 0},
		{"a budget of one makes the first failure final", nil, 1, 1, true, 0},
		{"details from an older worker without a count start from zero", &failures{}, 2, 1, false, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingTool{err: errors.New("backend unavailable")}
			beats := listenHeartbeats(t)
			if tt.prior != nil {
				beats.env.SetHeartbeatDetails(*tt.prior)
			}
			in := echoInput
			in.Attempts = tt.attempts
			_, err := runToolIn(t, beats.env, &activities.Tool{Runner: toolRegistry(t, rec), Log: echoLog()}, in)

			appErr := requireAppError(t, err)
			require.Equal(t, signals.ToolFailure, appErr.Type())
			require.Equal(t, tt.final, appErr.NonRetryable())
			require.Contains(t, appErr.Error(), "backend unavailable")
			require.Equal(t, tt.wantDelay, appErr.NextRetryDelay())
			require.Equal(t, failures{Failures: tt.wantCount}, beats.last(), "the next attempt starts from this count")
			if tt.final {
				require.Contains(t, appErr.Error(), fmt.Sprintf("(attempt %d of %d)", tt.wantCount, tt.wantCount))
			}
			require.Len(t, rec.got(), 1)
		})
	}
}

func TestToolAttemptCarriesItsCountInEveryHeartbeat(t *testing.T) {
	// An attempt that then dies (its worker is killed) leaves this count
	// for the next one: a fault neither raises nor resets it.
	rec := &recordingTool{res: tools.Result{Content: "hi"}}
	beats := listenHeartbeats(t)
	beats.env.SetHeartbeatDetails(failures{Failures: 2})
	out, err := runToolIn(t, beats.env, &activities.Tool{Runner: toolRegistry(t, rec), Log: echoLog()}, echoInput)
	require.NoError(t, err)
	require.Equal(t, "hi", out.Content)
	require.Equal(t, failures{Failures: 2}, beats.last())
}

func TestToolOwnFailureTextIsBounded(t *testing.T) {
	huge := strings.Repeat("e", 3<<20)
	rec := &recordingTool{err: errors.New(huge)}
	beats := listenHeartbeats(t)
	beats.env.SetHeartbeatDetails(failures{Failures: 2})
	_, err := runToolIn(t, beats.env, &activities.Tool{Runner: toolRegistry(t, rec), Log: echoLog()}, echoInput)

	appErr := requireAppError(t, err)
	require.True(t, appErr.NonRetryable())
	require.Less(t, len(appErr.Message()), activities.MaxErrorBytes+200)
	require.Contains(t, appErr.Message(), "[truncated: ")
	require.Contains(t, appErr.Message(), "(attempt 3 of 3)")
}

func TestLocalToolCountsItsOwnFailuresByAttempt(t *testing.T) {
	// A local activity has no heartbeat; its attempts restart with the
	// workflow task, so its attempt number counts only its own failures.
	rec := &recordingTool{err: errors.New("backend unavailable")}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	tool := &activities.Tool{Runner: toolRegistry(t, rec), Log: echoLog()}
	env.RegisterActivity(tool.Run)
	in := echoInput
	in.Arguments, in.Attempts = []byte(`{"text":"hi"}`), 1
	_, err := env.ExecuteLocalActivity(tool.Run, in)
	appErr := requireAppError(t, err)
	require.Equal(t, signals.ToolFailure, appErr.Type())
	require.True(t, appErr.NonRetryable(), "attempt 1 of 1")
}

func TestToolWithDroppedArgumentsAnswersWhyWithoutRunning(t *testing.T) {
	rec := &recordingTool{res: tools.Result{Content: "hi"}}
	big := llm.Bound(eventlog.AssistantMessage{ToolCalls: []eventlog.ToolCallRequest{{
		ID: "c1", Name: "echo", Arguments: []byte(`{"text":"` + strings.Repeat("x", llm.MaxArgumentsBytes) + `"}`),
	}}})
	log := &fakeToolCalls{req: big.ToolCalls[0]}
	out, err := runTool(t, &activities.Tool{Runner: toolRegistry(t, rec), Log: log}, echoInput)
	require.NoError(t, err)
	require.True(t, out.IsError)
	require.Contains(t, out.Content, "the tool did not run: the arguments of this call were 262155 bytes, over the limit of 262144 bytes")
	require.Empty(t, rec.got())
}

func TestSummaryRetriesItsOwnRetryableFailuresWithinItsBudget(t *testing.T) {
	tests := []struct {
		name  string
		kind  eventlog.FailureKind
		prior *failures
		final bool
	}{
		{"overloaded, first failure", eventlog.FailureOverloaded, nil, false},
		{"overloaded, budget used", eventlog.FailureOverloaded, &failures{1}, true},
		{"auth is final at once", eventlog.FailureAuth, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &fakeProvider{err: llm.Fail(tt.kind, 0, 0, "no", nil)}
			m := newModel(t, map[string]activities.Provider{"main": p}, &fakeConversation{msgs: testConversation})
			beats := listenHeartbeats(t)
			if tt.prior != nil {
				beats.env.SetHeartbeatDetails(*tt.prior)
			}
			beats.env.RegisterActivity(m.Call)
			_, err := beats.env.ExecuteActivity(m.Call, signals.ModelInput{
				Ref: signals.LogRef{Upto: 2}, Call: signals.CallConfig{Summarize: &signals.Summarize{Keep: 1, Attempts: 2}},
			})
			appErr := requireAppError(t, err)
			require.Equal(t, string(tt.kind), appErr.Type())
			require.Equal(t, tt.final, appErr.NonRetryable())
		})
	}
}
