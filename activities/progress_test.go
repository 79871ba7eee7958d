package activities_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/signals"
)

// progressBeat is the tool activity's heartbeat detail with a call's
// progress, in its wire form (what package agent reads).
type progressBeat struct {
	Failures int32 `json:"failures"`
	Progress *struct {
		Tool     string  `json:"tool"`
		Attempt  int32   `json:"attempt"`
		Progress float64 `json:"progress"`
		Total    float64 `json:"total"`
		Message  string  `json:"message"`
	} `json:"progress"`
}

// runWithProgressBeats runs the tool activity from a workflow, as a worker
// does, with a heartbeat timeout short enough that heartbeats reach
// Temporal (seen, in order) within a second, and returns its output.
func runWithProgressBeats(t *testing.T, tool *activities.Tool, seen func(progressBeat)) signals.ToolOutput {
	t.Helper()
	require.NoError(t, tool.Validate())
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, d converter.EncodedValues) {
		var b progressBeat
		require.NoError(t, d.Get(&b))
		seen(b)
	})
	env.RegisterActivityWithOptions(tool.Run, activity.RegisterOptions{Name: signals.ToolActivity})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context, in signals.ToolInput) (signals.ToolOutput, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 15 * time.Second, HeartbeatTimeout: time.Second})
		var out signals.ToolOutput
		err := workflow.ExecuteActivity(ctx, signals.ToolActivity, in).Get(ctx, &out)
		return out, err
	}, workflow.RegisterOptions{Name: "progress-test"})
	env.ExecuteWorkflow("progress-test", echoInput)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var out signals.ToolOutput
	require.NoError(t, env.GetWorkflowResult(&out))
	return out
}

func TestToolHeartbeatCarriesTheCallsLatestProgressOnOneBoundedLine(t *testing.T) {
	var (
		mu     sync.Mutex
		beats  []progressBeat
		second = make(chan struct{})
		once   sync.Once
		runs   atomic.Int32
	)
	seen := func(b progressBeat) {
		mu.Lock()
		defer mu.Unlock()
		beats = append(beats, b)
		if b.Progress != nil && b.Progress.Progress == 2 {
			once.Do(func() { close(second) })
		}
	}
	long := "second\nline\x1b[31m\u202e " + strings.Repeat("é", 200)
	reg, err := tools.NewRegistry(tools.Tool{
		Name: "echo", Description: "reports progress", Parameters: []byte(`{"type":"object"}`),
		Run: func(ctx context.Context, _ tools.Call) (tools.Result, error) {
			if runs.Add(1) == 1 {
				return tools.Result{}, errors.New("backend unavailable") // one own failure, counted
			}
			tools.ReportProgress(ctx, tools.Progress{Progress: 1, Total: 3, Message: "first"})
			tools.ReportProgress(ctx, tools.Progress{Progress: 2, Total: 3, Message: long})
			select { // the heartbeat loop must record the latest progress by itself
			case <-second:
				return tools.Result{Content: "done"}, nil
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			}
		},
	})
	require.NoError(t, err)
	out := runWithProgressBeats(t, &activities.Tool{Runner: reg, Log: echoLog(), HeartbeatEvery: time.Millisecond}, seen)
	require.Equal(t, "done", out.Content, "a heartbeat carried progress 2 while the call ran")

	mu.Lock()
	defer mu.Unlock()
	require.Nil(t, beats[0].Progress, "an attempt starts with no progress")
	var last progressBeat
	for i, b := range beats {
		if b.Progress != nil {
			require.Equal(t, int32(1), b.Failures, "progress never changes the count")
		}
		if last.Progress != nil && last.Progress.Progress == 2 {
			require.Equal(t, last, b, "heartbeat %d went back to older details", i)
		}
		if b.Progress != nil {
			last = b
		}
	}
	p := last.Progress
	require.Equal(t, "echo", p.Tool)
	require.Equal(t, int32(2), p.Attempt, "the attempt that reported it")
	require.Equal(t, []float64{2, 3}, []float64{p.Progress, p.Total})
	require.LessOrEqual(t, len(p.Message), activities.MaxProgressMessage)
	require.True(t, strings.HasPrefix(p.Message, "second line [31m é"), p.Message)
	require.True(t, strings.HasSuffix(p.Message, "é…"), p.Message)
	require.NotContains(t, p.Message, "\n")
}
