package activities_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// fakeToolCalls answers every ToolCall with req or err and records what it was asked.
type fakeToolCalls struct {
	req eventlog.ToolCallRequest
	err error

	mu  sync.Mutex
	got []toolCallAsk
}

type toolCallAsk struct {
	ref    signals.LogRef
	seq    int64
	callID string
}

func (f *fakeToolCalls) ToolCall(_ context.Context, ref signals.LogRef, seq int64, callID string) (eventlog.ToolCallRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, toolCallAsk{ref: ref, seq: seq, callID: callID})
	return f.req, f.err
}

func (f *fakeToolCalls) asks() []toolCallAsk {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]toolCallAsk(nil), f.got...)
}

// recordingTool is a tool that records the calls it runs and answers res or err.
type recordingTool struct {
	res tools.Result
	err error

	mu    sync.Mutex
	calls []tools.Call
}

func (r *recordingTool) run(_ context.Context, c tools.Call) (tools.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
	return r.res, r.err
}

func (r *recordingTool) got() []tools.Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]tools.Call(nil), r.calls...)
}

func toolRegistry(t *testing.T, rec *recordingTool) *tools.Registry {
	t.Helper()
	r, err := tools.NewRegistry(tools.Tool{
		Name:        "echo",
		Description: "echoes text",
		Parameters:  []byte(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Run:         rec.run,
	})
	require.NoError(t, err)
	return r
}

func runTool(t *testing.T, tool *activities.Tool, in signals.ToolInput) (signals.ToolOutput, error) {
	t.Helper()
	require.NoError(t, tool.Validate())
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(tool.Run)
	val, err := env.ExecuteActivity(tool.Run, in)
	if err != nil {
		return signals.ToolOutput{}, err
	}
	var out signals.ToolOutput
	require.NoError(t, val.Get(&out))
	return out, nil
}

var echoInput = signals.ToolInput{
	AssistantSeq: 11, CallID: "call_2_0", Name: "echo", IdempotencyKey: "agent-1/3/2/call_2_0",
}

func TestToolRunExecutesCallWithArgumentsFromLog(t *testing.T) {
	tests := []struct {
		name string
		res  tools.Result
	}{
		{"plain result", tools.Result{Content: "hi"}},
		{"error result", tools.Result{Content: "no such file", IsError: true}},
		{"concluding result", tools.Result{Content: "bye", ConcludesTurn: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingTool{res: tt.res}
			log := &fakeToolCalls{req: eventlog.ToolCallRequest{
				ID: echoInput.CallID, Name: "echo", Arguments: []byte(`{"text":"hi"}`),
			}}
			tool := &activities.Tool{Runner: toolRegistry(t, rec), Log: log}

			out, err := runTool(t, tool, echoInput)
			require.NoError(t, err)
			require.Equal(t, signals.ToolOutput{
				CallID: echoInput.CallID, Name: "echo", Content: tt.res.Content,
				IsError: tt.res.IsError, ConcludesTurn: tt.res.ConcludesTurn,
			}, out)

			require.Equal(t, []toolCallAsk{{
				ref:    signals.LogRef{AgentID: testWorkflowID, RunID: testRunID, Upto: echoInput.AssistantSeq + 1},
				seq:    echoInput.AssistantSeq,
				callID: echoInput.CallID,
			}}, log.asks())

			calls := rec.got()
			require.Len(t, calls, 1)
			require.Equal(t, testWorkflowID, calls[0].AgentID)
			require.Equal(t, echoInput.CallID, calls[0].CallID)
			require.Equal(t, "echo", calls[0].Name)
			require.Equal(t, echoInput.IdempotencyKey, calls[0].IdempotencyKey)
			require.JSONEq(t, `{"text":"hi"}`, string(calls[0].Arguments))
		})
	}
}

func TestToolRunLogReadFailureIsAFaultThatDoesNotCount(t *testing.T) {
	rec := &recordingTool{res: tools.Result{Content: "hi"}}
	log := &fakeToolCalls{err: errors.New("log of agent-1 has no assistant message at seq 11")}
	tool := &activities.Tool{Runner: toolRegistry(t, rec), Log: log}

	beats := listenHeartbeats(t)
	beats.env.SetHeartbeatDetails(failures{Failures: 2})
	_, err := runToolIn(t, beats.env, tool, echoInput)
	appErr := requireAppError(t, err)
	require.Equal(t, activities.ErrLogUnavailable, appErr.Type())
	require.False(t, appErr.NonRetryable())
	require.Contains(t, appErr.Error(), "no assistant message at seq 11")
	require.Contains(t, appErr.Error(), "call_2_0")
	require.Empty(t, rec.got(), "the tool must not run without its arguments")
	require.Equal(t, failures{Failures: 2}, beats.last(), "the count is carried on, not raised")
}

func TestToolRunReportsUnknownToolAsErrorResult(t *testing.T) {
	rec := &recordingTool{res: tools.Result{Content: "hi"}}
	log := &fakeToolCalls{req: eventlog.ToolCallRequest{ID: "c9", Name: "rm_rf", Arguments: []byte(`{}`)}}
	tool := &activities.Tool{Runner: toolRegistry(t, rec), Log: log}

	out, err := runTool(t, tool, signals.ToolInput{AssistantSeq: 4, CallID: "c9", Name: "rm_rf", IdempotencyKey: "k"})
	require.NoError(t, err)
	require.Equal(t, "c9", out.CallID)
	require.Equal(t, "rm_rf", out.Name)
	require.True(t, out.IsError)
	require.False(t, out.ConcludesTurn)
	require.Contains(t, out.Content, `unknown tool "rm_rf"`)
	require.Empty(t, rec.got())
}

func TestToolValidateRequiresRunnerAndLog(t *testing.T) {
	reg := toolRegistry(t, &recordingTool{})
	tests := []struct {
		name    string
		tool    activities.Tool
		wantErr bool
	}{
		{"complete", activities.Tool{Runner: reg, Log: &fakeToolCalls{}}, false},
		{"no runner", activities.Tool{Log: &fakeToolCalls{}}, true},
		{"no log", activities.Tool{Runner: reg}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.tool.Validate()
			if !tt.wantErr {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, "runner and log reader are required")
		})
	}
}
