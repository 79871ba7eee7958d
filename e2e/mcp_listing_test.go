package e2e

import (
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Of three MCP servers an agent names, one crashes when asked for its
// tools and one refuses the worker's credentials (HTTP 401). The turn goes
// on with the good server's tools, which run; the failing servers' tools
// are not offered, and a call of one is answered "not available". Each
// failing server is named, with why, in the recorded listing (which the
// transcript shows) and in the worker's log.
func TestOneFailingMCPServerLeavesTheOthersToolsListedAndUsable(t *testing.T) {
	e := newEnv(t)
	bin := buildMCPServer(t)
	url := startHTTPMCPServer(t, bin, t.TempDir(), "Authorization: Bearer right")
	file, err := json.Marshal(map[string]any{"servers": map[string]any{
		"files":  map[string]any{"command": bin, "args": []string{"-state", t.TempDir()}},
		"broken": map[string]any{"command": bin, "args": []string{"-state", t.TempDir(), "-crash-on-list"}},
		"locked": map[string]any{"url": url, "headers_env": map[string]string{"Authorization": "LOCKED_AUTH"}},
	}})
	require.NoError(t, err)
	cfg, err := mcp.Parse(file, func(k string) string {
		return map[string]string{"PATH": os.Getenv("PATH"), "LOCKED_AUTH": "Bearer wrong"}[k]
	})
	require.NoError(t, err)
	logs := &lockedBuffer{}
	e.startMCPWorker(cfg, slog.New(slog.NewTextHandler(logs, nil)))

	ctx := ctxT(t, 2*time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "mcp-one-fails", Options: signals.AgentOptions{Tools: []string{"mcp:broken", "mcp:files", "mcp:locked"}},
		First: "/tool files__echo {\"text\":\"still served\"}\n/tool broken__echo {\"text\":\"x\"}\n/tool locked__echo {\"text\":\"x\"}",
	})
	require.NoError(t, err)
	waitIdle(ctx, t, h)

	evs := requireReplaysAndProjects(ctx, t, e, h, "mcp-one-fails")
	listed := ofType[eventlog.ToolsListed](evs)
	require.Len(t, listed, 1)
	byName := map[string]eventlog.ServerTools{}
	for _, st := range listed[0].Servers {
		byName[st.Server] = st
	}
	require.NotEmpty(t, byName["files"].Tools)
	require.Empty(t, byName["broken"].Tools)
	require.Contains(t, byName["broken"].Error, `list tools of MCP server "broken"`)
	require.Contains(t, byName["broken"].Error, "the server closed the connection")
	require.Empty(t, byName["locked"].Tools)
	locked := `MCP server "locked" refused the worker: HTTP 401 Unauthorized; check the credentials the worker sends it (headers_env)`
	require.Equal(t, locked, byName["locked"].Error)

	results := map[string]eventlog.ToolResult{}
	for _, r := range ofType[eventlog.ToolResult](evs) {
		results[r.Name] = r
	}
	require.Equal(t, "still served", results["files__echo"].Content)
	require.False(t, results["files__echo"].IsError)
	for _, name := range []string{"broken__echo", "locked__echo"} {
		r := results[name]
		require.True(t, r.IsError, name)
		require.Equal(t, eventlog.ToolUnavailable, r.Outcome, name)
		require.Contains(t, r.Content, "is not available to this agent", name)
		available := r.Content[strings.Index(r.Content, "available: "):]
		require.Contains(t, available, "files__echo")
		require.NotContains(t, available, "broken__")
		require.NotContains(t, available, "locked__")
	}

	transcript := e.starter(ctx, "log", h.ID)
	requireExit(t, transcript, 0)
	require.Contains(t, transcript.out, `broken failed (list tools of MCP server "broken"`)
	require.Contains(t, transcript.out, "locked failed ("+locked+")")
	require.Contains(t, logs.String(), `msg="MCP server not listed" server=broken`)
	require.Contains(t, logs.String(), `msg="MCP server not listed" server=locked`)
}
