package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// Issue 19: one model reply of 84 or more read_file calls of a large file
// (each result capped at 48 KiB) made one workflow task's completion pass
// gRPC's 4 MiB limit, and the server terminated the workflow. Every call
// a step allows (loop.MaxCallsPerStep) now reads the largest result
// read_file returns, and the agent answers.
func TestAReplyOfTheMostReadFileCallsOfALargeFileCompletes(t *testing.T) {
	e := newEnv(t)
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "big.txt"), []byte(strings.Repeat("0123456789abcdef\n", 16<<10)), 0o600))
	ws, err := tools.Workspace(tools.WorkspaceOptions{Root: root})
	require.NoError(t, err)
	e.startWorker(ws...)
	ctx := ctxT(t, 2*time.Minute)

	lines := make([]string, loop.MaxCallsPerStep)
	for i := range lines {
		lines[i] = fmt.Sprintf(`/tool read_file {"path":"big.txt","offset":%d}`, i+1)
	}
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "reader", Options: signals.AgentOptions{
		Tools: []string{"read_file"}, MaxParallelTools: loop.MaxCallsPerStep}, First: strings.Join(lines, "\n")})
	require.NoError(t, err)
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, st.Turn)

	log, err := h.Log(ctx)
	require.NoError(t, err)
	evs := events(t, log)
	res := ofType[eventlog.ToolResult](evs)
	require.GreaterOrEqual(t, len(res), loop.MaxCallsPerStep)
	for i, r := range res[:loop.MaxCallsPerStep] { // the first step's (the scripted model goes on after)
		require.Equal(t, fmt.Sprintf("call_1_%d", i), r.CallID)
		require.False(t, r.IsError)
		require.Greater(t, len(r.Content), 40<<10, "each call read the largest result read_file returns")
	}
	require.Equal(t, eventlog.EndCompleted, ofType[eventlog.TurnEnd](evs)[0].Reason)
	requireProjects(ctx, t, e, h)
}
