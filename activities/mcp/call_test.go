package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

const testKey = "agent-1/3/2/call_2_0"

// noLog is never asked: the calls carry their arguments.
type noLog struct{}

func (noLog) ToolCall(context.Context, signals.LogRef, int64, string) (eventlog.ToolCallRequest, error) {
	return eventlog.ToolCallRequest{}, errors.New("no log in this test")
}

// runTool runs the tool activity on tool of "srv" in a test activity
// environment, as the loop schedules an MCP call.
func runTool(t *testing.T, m *mcp.Manager, tool, args string) (signals.ToolOutput, error) {
	t.Helper()
	reg, err := tools.NewRegistry()
	require.NoError(t, err)
	a := &activities.Tool{Runner: reg, Log: noLog{}, MCP: &mcp.Caller{Sessions: m}}
	env := activityEnv()
	env.RegisterActivity(a.Run)
	val, err := env.ExecuteActivity(a.Run, signals.ToolInput{
		AssistantSeq: 11, CallID: "call_2_0", Name: signals.MCPToolName("srv", tool), IdempotencyKey: testKey,
		Arguments: []byte(args), MCP: &signals.MCPGrant{Server: "srv", Tool: tool},
	})
	if err != nil {
		return signals.ToolOutput{}, err
	}
	var out signals.ToolOutput
	require.NoError(t, val.Get(&out))
	require.Equal(t, "call_2_0", out.CallID)
	require.Equal(t, "srv__"+tool, out.Name)
	return out, nil
}

func mustRun(t *testing.T, m *mcp.Manager, tool, args string) signals.ToolOutput {
	t.Helper()
	out, err := runTool(t, m, tool, args)
	require.NoError(t, err)
	return out
}

// requireFault checks that err is the retryable fault of an MCP server,
// which the model never sees and which never counts against the call's
// attempts.
func requireFault(t *testing.T, err error, contains string) {
	t.Helper()
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "want an ApplicationError, got %T: %v", err, err)
	require.Equal(t, activities.ErrMCPUnavailable, appErr.Type())
	require.False(t, appErr.NonRetryable())
	require.Contains(t, appErr.Error(), contains)
}

func TestACallReturnsTheToolsTextContent(t *testing.T) {
	transports(t, func(t *testing.T, f *fixture) {
		out := mustRun(t, f.manager(), "echo", `{"text":"hello"}`)
		require.Equal(t, "hello", out.Content)
		require.False(t, out.IsError)
		require.Empty(t, out.Outcome, "the tool answered")
	})
}

func TestOtherContentIsSummarizedAndStructuredContentReadOnlyWhenThereIsNoContent(t *testing.T) {
	transports(t, func(t *testing.T, f *fixture) {
		m := f.manager()
		require.Equal(t, "a red square\n[image image/png, 12 KB]", mustRun(t, m, "picture", `{}`).Content)
		require.JSONEq(t, `{"temperature":21,"unit":"C"}`, mustRun(t, m, "structured", `{}`).Content)
		require.Equal(t, "[image image/png, 200 KB]", mustRun(t, m, "media", `{}`).Content,
			"an image stays a summary though its structured copy holds its base64")
	})
}

func TestAnIsErrorResultIsAnErrorResultTheModelSees(t *testing.T) {
	transports(t, func(t *testing.T, f *fixture) {
		out := mustRun(t, f.manager(), "fail", `{}`)
		require.True(t, out.IsError)
		require.Equal(t, "the disk is full", out.Content)
		require.Empty(t, out.Outcome, "the tool answered")
	})
}

func TestAJSONRPCErrorTheServerAnswersIsAnErrorResultTheModelSees(t *testing.T) {
	transports(t, func(t *testing.T, f *fixture) {
		m := f.manager()
		out := mustRun(t, m, "rpc_error", `{}`)
		require.True(t, out.IsError)
		require.Equal(t, `MCP server "srv" refused tool "rpc_error": backend refused the request (JSON-RPC error -32000)`, out.Content)

		out = mustRun(t, m, "no_such_tool", `{}`)
		require.True(t, out.IsError)
		require.Contains(t, out.Content, `unknown tool "no_such_tool"`)

		out = mustRun(t, m, "echo", `{"text":"still here"}`)
		require.Equal(t, "still here", out.Content, "the session survives refusals")
	})
}

func TestArgumentsThatAreNotAnObjectAreAnErrorResult(t *testing.T) {
	f := newFixture(t, false)
	m := f.manager()
	for _, args := range []string{`[1]`, `null`, `"x"`, `{`} {
		res, err := (&mcp.Caller{Sessions: m}).CallMCP(context.Background(), signals.MCPGrant{Server: "srv", Tool: "echo"},
			tools.Call{Name: "srv__echo", Arguments: []byte(args)})
		require.NoError(t, err)
		require.Equal(t, tools.Result{Content: `arguments of tool "srv__echo" must be a JSON object`, IsError: true}, res, args)
	}
	require.Equal(t, "", call(t, m, "echo", ``).Content, "no arguments are {}")
}

func TestAServerTheWorkerDoesNotHaveIsAnErrorResult(t *testing.T) {
	f := newFixture(t, false)
	res, err := (&mcp.Caller{Sessions: f.manager()}).CallMCP(context.Background(),
		signals.MCPGrant{Server: "other", Tool: "echo"}, tools.Call{Name: "other__echo"})
	require.NoError(t, err)
	require.Equal(t, tools.Result{Content: `MCP server "other" is not configured on this worker`, IsError: true}, res)
}

func TestACrashIsARetryableFaultAndTheRetryConnectsAgainWithTheSameKey(t *testing.T) {
	transports(t, func(t *testing.T, f *fixture) {
		m := f.manager()
		_, err := runTool(t, m, "crash", `{}`)
		requireFault(t, err, `call tool "crash" of MCP server "srv"`)

		f.restart() // a stdio server is started again by the next call
		out := mustRun(t, m, "crash", `{}`)
		require.Equal(t, "recovered", out.Content)
		require.False(t, out.IsError)
		require.Equal(t, []string{testKey, testKey}, f.lines("crash-keys"), "both attempts carried the call's key")
	})
}

func TestTheIdempotencyKeyReachesTheServerInMeta(t *testing.T) {
	transports(t, func(t *testing.T, f *fixture) {
		require.Equal(t, testKey, mustRun(t, f.manager(), "record_key", `{}`).Content)
		require.Equal(t, []string{testKey}, f.lines("keys"))
	})
}

func TestACallPastItsDeadlineEndsThenAndTheSessionStays(t *testing.T) {
	transports(t, func(t *testing.T, f *fixture) {
		m := f.manager()
		c := &mcp.Caller{Sessions: m}
		pid := call(t, m, "pid", `{}`).Content
		started := time.Now()
		_, err := c.CallMCP(timeout(t, 300*time.Millisecond), signals.MCPGrant{Server: "srv", Tool: "sleep"},
			tools.Call{Name: "srv__sleep", Arguments: []byte(`{"ms":60000}`), IdempotencyKey: testKey})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Less(t, time.Since(started), 5*time.Second)
		require.Equal(t, pid, call(t, m, "pid", `{}`).Content, "the same server answers")
	})
}

func TestConcurrentCallsShareOneSession(t *testing.T) {
	transports(t, func(t *testing.T, f *fixture) {
		m := f.manager()
		var wg sync.WaitGroup
		pids := make([]string, 16)
		for i := range pids {
			wg.Go(func() {
				text := fmt.Sprint("call ", i)
				require.Equal(t, text, call(t, m, "echo", fmt.Sprintf(`{"text":%q}`, text)).Content)
				pids[i] = call(t, m, "pid", `{}`).Content
			})
		}
		wg.Wait()
		for _, p := range pids {
			require.Equal(t, pids[0], p, "one server process for all calls")
		}
	})
}

func TestResultsAreBoundedLikeOtherToolResults(t *testing.T) {
	f := newFixture(t, false)
	res, err := (&mcp.Caller{Sessions: f.manager(), MaxResultBytes: 8}).CallMCP(context.Background(),
		signals.MCPGrant{Server: "srv", Tool: "echo"}, tools.Call{Arguments: []byte(`{"text":"0123456789abcdef"}`)})
	require.NoError(t, err)
	require.Equal(t, tools.Truncate("0123456789abcdef", 8), res.Content)
	require.True(t, strings.HasPrefix(res.Content, "01234567\n[truncated: 8 of 16 bytes shown]"), res.Content)
}

func TestCloseStopsStdioServersAndLaterCallsFail(t *testing.T) {
	f := newFixture(t, false)
	m := f.manager()
	var pid int
	_, err := fmt.Sscan(call(t, m, "pid", `{}`).Content, &pid)
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, 0), "the server runs")

	require.NoError(t, m.Close())
	require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the server process is gone")
	_, err = (&mcp.Caller{Sessions: m}).CallMCP(context.Background(), signals.MCPGrant{Server: "srv", Tool: "pid"}, tools.Call{})
	require.ErrorContains(t, err, "the worker is stopping")
}

func TestAStdioServerGetsOnlyTheEnvironmentItIsGiven(t *testing.T) {
	f := newFixture(t, false)
	f.env["PATH"], f.env["OPENAI_API_KEY"], f.env["WORKER_TOKEN"] = "/usr/bin:/bin", "sk-secret", "tok"
	entry := f.entry()
	entry["env"] = map[string]string{"MODE": "test"}
	entry["env_from"] = map[string]string{"TOKEN": "WORKER_TOKEN"}
	m := mcp.NewManager(f.config(map[string]any{"srv": entry}), quiet)
	t.Cleanup(func() { _ = m.Close() })
	for name, want := range map[string]string{"PATH": "/usr/bin:/bin", "MODE": "test", "TOKEN": "tok", "OPENAI_API_KEY": "", "WORKER_TOKEN": ""} {
		require.Equal(t, want, call(t, m, "getenv", fmt.Sprintf(`{"text":%q}`, name)).Content, name)
	}
}

func TestAStdioServerRunsInItsDirectory(t *testing.T) {
	f := newFixture(t, false)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	entry := f.entry()
	entry["dir"] = dir
	m := mcp.NewManager(f.config(map[string]any{"srv": entry}), quiet)
	t.Cleanup(func() { _ = m.Close() })
	require.Equal(t, dir, call(t, m, "cwd", `{}`).Content)
}

func TestAnHTTPServerErrorIsAFaultAndTheNextCallConnectsAgain(t *testing.T) {
	f := newFixture(t, true)
	p, m := f.proxied()

	require.Equal(t, "up", mustRun(t, m, "echo", `{"text":"up"}`).Content)
	for _, status := range []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable} {
		p.status.Store(int32(status))
		_, err := runTool(t, m, "echo", `{"text":"down"}`)
		requireFault(t, err, `call tool "echo" of MCP server "srv"`)
		p.status.Store(0)
		require.Equal(t, "up again", mustRun(t, m, "echo", `{"text":"up again"}`).Content)
	}
}
