package e2e

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// A long MCP call's progress notifications show in the agent's status
// while it runs (Handle.Calls, starter status and status --json), the
// latest one each time, on one line with the token of a URL in the
// server's message dropped; once the call answered, nothing of it is left.
func TestStatusShowsAnMCPCallsLatestProgressWhileItRunsAndNothingAfter(t *testing.T) {
	e := newEnv(t)
	e.cfg.ToolTimeout = 2 * time.Minute
	bin, state := buildMCPServer(t), t.TempDir()
	file, err := json.Marshal(map[string]any{"servers": map[string]any{
		"files": map[string]any{"command": bin, "args": []string{"-state", state}},
	}})
	require.NoError(t, err)
	cfg, err := mcp.Parse(file, func(k string) string { return map[string]string{"PATH": os.Getenv("PATH")}[k] })
	require.NoError(t, err)
	e.startMCPWorker(cfg, slog.New(slog.DiscardHandler))

	ctx := ctxT(t, 2*time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "progress", Options: signals.AgentOptions{Tools: []string{"mcp:files/steps"}},
		First: `/tool files__steps {"text":"indexing\nsee https://u:pw@host/x?token=s3cret"}`,
	})
	require.NoError(t, err)
	const message = "indexing see https://host/x?…"

	p := waitProgress(t, h, 1)
	require.Equal(t, agent.CallProgress{
		ID: p.ID, Tool: "files__steps", Attempt: 1, Progress: 1, Total: 3, Message: message + " 1",
	}, p)
	require.True(t, strings.HasPrefix(p.ID, "tool-"), p.ID)
	r := e.starter(ctx, "status", "progress")
	requireExit(t, r, 0)
	require.Equal(t, `progress:  tool files__steps (activity `+p.ID+`): 1/3 "`+message+` 1"`+"\n", lineWith(r.out, "progress:  "), r.out)
	require.NotContains(t, r.out, "s3cret")
	require.NotContains(t, r.out, "pw@")

	require.NoError(t, os.WriteFile(filepath.Join(state, "step-1"), nil, 0o600))
	require.Equal(t, message+" 2", waitProgress(t, h, 2).Message, "the latest progress replaces the one before")
	r = e.starter(ctx, "status", "--json", "progress")
	requireExit(t, r, 0)
	require.Contains(t, r.out, `"progress": [`)
	require.Contains(t, r.out, `"message": "`+message+` 2"`)

	for _, f := range []string{"step-2", "step-3"} {
		require.NoError(t, os.WriteFile(filepath.Join(state, f), nil, 0o600))
	}
	waitIdle(ctx, t, h)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	results := ofType[eventlog.ToolResult](events(t, log))
	require.Len(t, results, 1)
	require.Equal(t, "stepped 3", results[0].Content)
	calls, err := h.Calls(ctx)
	require.NoError(t, err)
	require.Empty(t, calls.Progress, "no progress outlives its call")
	r = e.starter(ctx, "status", "progress")
	requireExit(t, r, 0)
	require.NotContains(t, r.out, "progress:  ")
}

// waitProgress waits until the agent's one running call reports progress
// n, and returns it.
func waitProgress(t *testing.T, h *agent.Handle, n float64) agent.CallProgress {
	t.Helper()
	var got []agent.CallProgress
	waitFor(t, 30*time.Second, "the call's progress to reach status", func() bool {
		calls, err := h.Calls(t.Context())
		require.NoError(t, err)
		got = calls.Progress
		return len(got) == 1 && got[0].Progress == n
	})
	return got[0]
}
