package e2e

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"

	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// holdTools holds every tool activity at the worker's door until released:
// the window between the server dispatching the task and Tether's code
// running it, where a cancel can be recorded.
type holdTools struct {
	interceptor.WorkerInterceptorBase
	entered chan struct{}
	release chan struct{}
}

func (h *holdTools) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &holdInbound{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, h: h}
}

type holdInbound struct {
	interceptor.ActivityInboundInterceptorBase
	h *holdTools
}

func (i *holdInbound) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	if activity.GetInfo(ctx).ActivityType.Name == signals.ToolActivity {
		i.h.entered <- struct{}{}
		<-i.h.release
	}
	return i.Next.ExecuteActivity(ctx, in)
}

// A tool call canceled after its task reached the worker, but before the
// tool started, never starts, a worker's tool or an MCP server's: the
// attempt's first heartbeat, sent before the tool runs, learns of the
// cancel. Before, the MCP call was sent with a canceled context and the
// server ran it (issue 19: "a canceled tool call can start once").
func TestAToolCallCanceledBeforeItStartsNeverRuns(t *testing.T) {
	for _, kind := range []string{"worker", "mcp"} {
		t.Run(kind, func(t *testing.T) { testCanceledBeforeStart(t, kind) })
	}
}

func testCanceledBeforeStart(t *testing.T, kind string) {
	var ran atomic.Int32
	launch := tools.Tool{
		Name: "launch", Description: "Does something that cannot be undone.",
		Parameters: []byte(`{"type":"object"}`),
		Run: func(context.Context, tools.Call) (tools.Result, error) {
			ran.Add(1)
			return tools.Result{Content: "launched"}, nil
		},
	}
	hold := &holdTools{entered: make(chan struct{}, 1), release: make(chan struct{})}
	e := newEnv(t)
	e.interceptors = append(e.interceptors, hold)
	opts, first := signals.AgentOptions{Tools: []string{"launch"}}, "/tool launch {}"
	state := t.TempDir()
	if kind == "mcp" {
		file, err := json.Marshal(map[string]any{"servers": map[string]any{
			"files": map[string]any{"command": buildMCPServer(t), "args": []string{"-state", state}},
		}})
		require.NoError(t, err)
		cfg, err := mcp.Parse(file, func(k string) string { return map[string]string{"PATH": os.Getenv("PATH")}[k] })
		require.NoError(t, err)
		e.startMCPWorker(cfg, slog.New(slog.DiscardHandler))
		opts, first = signals.AgentOptions{Tools: []string{"mcp:files/append_note"}}, `/tool files__append_note {"text":"launched"}`
	} else {
		e.startWorker(launch)
	}
	ctx := ctxT(t, 2*time.Minute)

	id := "cancel-before-start-" + kind
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: id, Options: opts, First: first})
	require.NoError(t, err)
	select {
	case <-hold.entered:
	case <-ctx.Done():
		t.Fatal("the tool activity never reached the worker")
	}
	require.NoError(t, h.Cancel(ctx, "user pressed stop", false))
	require.Eventually(t, func() bool { return historyHas(ctx, t, e, id, enumspb.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED) },
		30*time.Second, 50*time.Millisecond, "the cancel is recorded while the task waits at the worker")
	close(hold.release)

	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, int32(0), ran.Load(), "the canceled call never ran")
	_, err = os.Stat(filepath.Join(state, "notes"))
	require.ErrorIs(t, err, os.ErrNotExist, "the MCP server never ran the canceled call")
	log, err := h.Log(ctx)
	require.NoError(t, err)
	evs := events(t, log)
	ends := ofType[eventlog.TurnEnd](evs)
	require.Len(t, ends, 1)
	require.Equal(t, eventlog.EndCanceled, ends[0].Reason)
	require.Equal(t, 1, st.Turn)
}

func historyHas(ctx context.Context, t *testing.T, e *env, id string, typ enumspb.EventType) bool {
	for it := e.c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT); it.HasNext(); {
		ev, err := it.Next()
		require.NoError(t, err)
		if ev.GetEventType() == typ {
			return true
		}
	}
	return false
}
