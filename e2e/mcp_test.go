package e2e

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// buildMCPServer builds the test MCP server of package mcp
// (activities/mcp/testdata/mcpserver).
func buildMCPServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpserver")
	out, err := exec.Command("go", "build", "-o", bin, "../activities/mcp/testdata/mcpserver").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

// startHTTPMCPServer runs the test server over streamable HTTP, requiring
// header ("Name: value") on every request, and returns its URL.
func startHTTPMCPServer(t *testing.T, bin, state, header string) string {
	t.Helper()
	cmd := exec.Command(bin, "-http", "127.0.0.1:0", "-state", state, "-require-header", header)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "the HTTP server printed no URL")
	return strings.TrimSpace(strings.TrimPrefix(line, "url "))
}

// startMCPWorker starts a worker with the scripted model and the MCP
// servers of cfg, logging to log, wired as mcpfx wires them: the
// ListTools activity, the tool activity's caller, and mcp:<server> among
// the tools agents may name, beside the worker's own tools.
func (e *env) startMCPWorker(cfg mcp.Config, log *slog.Logger, own ...tools.Tool) workflows.Config {
	e.t.Helper()
	reg, err := tools.NewRegistry(append(own, tools.LoopTools()...)...)
	require.NoError(e.t, err)
	sessions := mcp.NewManager(cfg, log)
	e.t.Cleanup(func() { _ = sessions.Close() }) // after the worker stops
	reader := activities.NewLogReader(activities.WorkflowLog{Client: e.c}, 0)
	model := &activities.Model{
		Providers: map[string]activities.Provider{scripted.Name: scripted.Provider{}}, DefaultProvider: scripted.Name,
		Tools: reg, Log: reader, HeartbeatEvery: time.Second,
	}
	tool := &activities.Tool{Runner: reg, Log: reader, HeartbeatEvery: time.Second, MCP: &mcp.Caller{Sessions: sessions}}
	require.NoError(e.t, model.Validate())
	require.NoError(e.t, tool.Validate())
	wcfg := workerfx.WorkflowConfig(e.cfg, nil, reg)
	wcfg.Providers = []string{scripted.Name}
	wcfg.Tools = append(wcfg.Tools, cfg.Grants()...)
	e.ts.NewWorkerWithOptions(signals.TaskQueue, func(r worker.Registry) {
		workflows.Register(r, wcfg)
		activities.Register(r, model, tool)
		mcp.Register(r, &mcp.Lister{Sessions: sessions})
	}, e.options())
	return wcfg
}

// An agent uses the tools of a stdio server and of a streamable-HTTP one
// (whose Authorization header comes from the worker's environment). The
// listing is recorded once while the servers' tools stay the same, and
// again in the turn after one changed. Read-only tools run in parallel,
// the others alone. A server that crashes mid-call is a fault: the call
// runs again with the same idempotency key and the model sees only its
// result, though one own failure would have ended it. A failed tool, a
// JSON-RPC error and a call past its time limit are results the model
// sees. The history replays.
func TestAnAgentUsesMCPToolsOverStdioAndHTTP(t *testing.T) {
	e := newEnv(t)
	e.cfg.ToolTimeout, e.cfg.ToolAttempts = 2*time.Second, 1
	bin := buildMCPServer(t)
	stdioState, httpState := t.TempDir(), t.TempDir()
	url := startHTTPMCPServer(t, bin, httpState, "Authorization: Bearer e2e")
	file, err := json.Marshal(map[string]any{"servers": map[string]any{
		"files": map[string]any{"command": bin, "args": []string{"-state", stdioState}},
		"web":   map[string]any{"url": url, "headers_env": map[string]string{"Authorization": "WEB_AUTH"}},
	}})
	require.NoError(t, err)
	cfg, err := mcp.Parse(file, func(k string) string {
		return map[string]string{"PATH": os.Getenv("PATH"), "WEB_AUTH": "Bearer e2e"}[k]
	})
	require.NoError(t, err)
	e.startMCPWorker(cfg, slog.New(slog.DiscardHandler))

	ctx := ctxT(t, 3*time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "mcp", Options: signals.AgentOptions{Tools: []string{"mcp:files", "mcp:web/echo", "mcp:web/grow"}},
		First: "/tool files__echo {\"text\":\"over stdio\"}\n/tool web__echo {\"text\":\"over http\"}\n/tool files__record_key {}",
	})
	require.NoError(t, err)
	waitIdle(ctx, t, h)
	for _, prompt := range []string{
		"/tool files__crash {}\n/tool files__fail {}\n/tool files__rpc_error {}\n/tool files__sleep {\"ms\":60000}",
		"/tool web__grow {}",
		"/say done",
	} {
		_, err := h.Followup(ctx, prompt)
		require.NoError(t, err)
		waitIdle(ctx, t, h)
	}

	evs := requireReplaysAndProjects(ctx, t, e, h, "mcp")
	results := map[string]eventlog.ToolResult{}
	for _, r := range ofType[eventlog.ToolResult](evs) {
		results[r.Name] = r
	}
	calls := map[string]eventlog.ToolCall{}
	for _, c := range ofType[eventlog.ToolCall](evs) {
		calls[c.Name] = c
	}
	requireResult := func(name, content string, isError bool) {
		t.Helper()
		require.Contains(t, results, name)
		require.Equal(t, content, results[name].Content, name)
		require.Equal(t, isError, results[name].IsError, name)
		require.Empty(t, results[name].Outcome, name)
	}
	requireResult("files__echo", "over stdio", false)
	requireResult("web__echo", "over http", false)
	key := calls["files__record_key"].IdempotencyKey
	require.NotEmpty(t, key)
	requireResult("files__record_key", key, false) // the server read it in _meta
	requireResult("files__crash", "recovered", false)
	crashKeys, err := os.ReadFile(filepath.Join(stdioState, "crash-keys"))
	require.NoError(t, err)
	require.Equal(t, []string{calls["files__crash"].IdempotencyKey, calls["files__crash"].IdempotencyKey},
		strings.Fields(string(crashKeys)), "the crashed attempt and its retry carried the same key")
	requireResult("files__fail", "the disk is full", true)
	requireResult("files__rpc_error", `MCP server "files" refused tool "rpc_error": backend refused the request (JSON-RPC error -32000)`, true)
	require.True(t, results["files__sleep"].IsError)
	require.Contains(t, results["files__sleep"].Content, "did not finish within 2s (attempt 1 of 1)")
	requireResult("web__grow", "grown", false)

	listed := ofType[eventlog.ToolsListed](evs)
	require.Len(t, listed, 2, "recorded in turn 1, then only when a server's tools changed")
	require.Equal(t, []string{"files", "web"}, []string{listed[0].Servers[0].Server, listed[0].Servers[1].Server})
	require.True(t, listed[1].Servers[0].Unchanged, "the restarted stdio server lists the same tools")
	require.False(t, listed[1].Servers[1].Unchanged)
	require.True(t, slices.ContainsFunc(listed[1].Servers[1].Tools, func(tl eventlog.MCPTool) bool { return tl.Name == "extra" }))
	require.True(t, strings.Contains(listed[0].Servers[0].Error, "huge_schema"), "a tool over the bounds is left out and named")

	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	sched, done := activityEvents(history)
	for _, id := range []string{"tool-1-1-0", "tool-1-1-1", "tool-1-1-2", "tool-2-1-0", "tool-2-1-1"} {
		require.NotZero(t, sched[id], id)
		require.NotZero(t, done[id], id)
	}
	require.Less(t, sched["tool-1-1-1"], done["tool-1-1-0"], "read-only tools run in parallel")
	require.Greater(t, sched["tool-1-1-2"], max(done["tool-1-1-0"], done["tool-1-1-1"]), "a destructive tool runs alone")
	require.Greater(t, sched["tool-2-1-1"], done["tool-2-1-0"], "a destructive tool runs alone")
}

// activityEvents maps activity IDs to the event IDs of their scheduling
// and their completion (or failure).
func activityEvents(history []*historypb.HistoryEvent) (sched, done map[string]int64) {
	sched, done = map[string]int64{}, map[string]int64{}
	ids := map[int64]string{}
	for _, ev := range history {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			id := ev.GetActivityTaskScheduledEventAttributes().GetActivityId()
			sched[id], ids[ev.GetEventId()] = ev.GetEventId(), id
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			done[ids[ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()]] = ev.GetEventId()
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED:
			done[ids[ev.GetActivityTaskFailedEventAttributes().GetScheduledEventId()]] = ev.GetEventId()
		}
	}
	return sched, done
}
