package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// A worker and a client run with --no-search-attributes on a namespace
// that has none of Tether's: agents start (a client that sets them is
// refused), take turns, start children and go idle, and their logs
// project from history.
func TestANamespaceWithoutTethersSearchAttributes(t *testing.T) {
	ts := testserver.New(t)
	c := ts.GetDefaultClient()
	e := &env{t: t, ts: ts, c: c, agents: agent.New(c, signals.TaskQueue, agent.WithoutSearchAttributes()),
		cfg: workflows.Config{ModelHeartbeat: 3 * time.Second, ToolHeartbeat: 3 * time.Second, NoSearchAttributes: true}}
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)

	_, err := agent.New(c, signals.TaskQueue).Create(ctx, agent.CreateOptions{ID: "with-attributes"})
	require.ErrorContains(t, err, "no mapping defined for search attribute Tether", "the namespace does not know Tether's search attributes")

	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "without-attributes",
		Options: signals.AgentOptions{Tools: []string{"echo", signals.SpawnTool}}, First: `/tool echo {"text":"one"}`})
	require.NoError(t, err)
	waitIdle(ctx, t, h)
	_, err = h.Followup(ctx, spawnLine("/say from the child", "wait"))
	require.NoError(t, err)
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)
	evs := requireProjects(ctx, t, e, h)
	res := ofType[eventlog.ToolResult](evs)
	require.Len(t, res, 2)
	require.Equal(t, "echo: one", res[0].Content)
	require.Equal(t, "from the child", res[1].Content)

	r := e.starter(ctx, "start", "--id", "cli", "--tools", "echo", "--wait", `/tool echo {"text":"hi"}`)
	requireExit(t, r, 1)
	require.Contains(t, r.err, "no mapping defined for search attribute Tether")
	r = e.starter(ctx, "--no-search-attributes", "start", "--id", "cli", "--tools", "echo", "--wait", `/tool echo {"text":"hi"}`)
	requireExit(t, r, 0)
	require.Contains(t, r.out, "tool result: echo → echo: hi")
}
