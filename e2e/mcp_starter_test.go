package e2e

import (
	"encoding/json"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/activities/tools"
)

// What the README and the starter's usage say of `start --tools` with MCP
// entries: "mcp:<server>" enables a server's tools and "mcp:<server>/<tool>"
// one of them, beside the worker's own tools; the list replaces the
// default; a malformed entry is refused before the agent starts, and a
// server the worker does not have fails the agent as it starts.
func TestStarterStartsAnAgentWithMCPTools(t *testing.T) {
	e := newEnv(t)
	bin := buildMCPServer(t)
	file, err := json.Marshal(map[string]any{"servers": map[string]any{
		"files": map[string]any{"command": bin, "args": []string{"-state", t.TempDir()}},
	}})
	require.NoError(t, err)
	cfg, err := mcp.Parse(file, func(k string) string { return map[string]string{"PATH": os.Getenv("PATH")}[k] })
	require.NoError(t, err)
	e.startMCPWorker(cfg, slog.New(slog.DiscardHandler), tools.CurrentTime(nil), tools.Calculator())
	ctx := ctxT(t, 2*time.Minute)

	r := e.starter(ctx, "start", "--id", "one-tool", "--tools", "mcp:files/echo,current_time", "--wait",
		"/tool files__echo {\"text\":\"from the starter\"}\n/tool current_time {}\n/tool files__pid {}")
	requireExit(t, r, 0)
	require.Contains(t, r.out, "tool result: files__echo → from the starter")
	require.Contains(t, r.out, "tool result: current_time → ")
	require.Contains(t, r.out, `tool error:  files__pid → tool "files__pid" is not available to this agent; available: files__echo, current_time`)

	r = e.starter(ctx, "start", "--id", "whole-server", "--tools", "mcp:files", "--wait",
		"/tool files__pid {}\n/tool calculate {\"expression\":\"1+1\"}")
	requireExit(t, r, 0)
	require.Regexp(t, `tool result: files__pid → \d+`, r.out)
	require.Contains(t, r.out, `tool error:  calculate → tool "calculate" is not available to this agent`, "the list replaces the default")

	for entry, why := range map[string]string{
		"mcp:a__b":   `starter: agent options are invalid: MCP tool entry "mcp:a__b": a server name is 1 to 32 of [a-zA-Z0-9_-] without "__"`,
		"mcp:files/": `starter: agent options are invalid: MCP tool entry "mcp:files/" names no tool after /`,
	} {
		r = e.starter(ctx, "start", "--tools", entry, "--wait", "hi")
		requireExit(t, r, 1)
		require.Empty(t, r.out, "no agent was started")
		require.Equal(t, why+"\n", r.err)
	}

	r = e.starter(ctx, "start", "--id", "no-such-server", "--tools", "mcp:other", "--wait", "hi")
	requireExit(t, r, 1)
	require.Equal(t, "no-such-server\n", r.out)
	require.Equal(t, "starter: agent is closed: no-such-server is failed: "+
		`agent options are invalid: MCP server "other" is not configured on this worker`+"\n", r.err, "it says why")
}
