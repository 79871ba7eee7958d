package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// lsIDs runs `starter ls args...` and returns the IDs of its table, sorted.
func (e *env) lsIDs(t *testing.T, ctx context.Context, args ...string) ([]string, starterResult) {
	t.Helper()
	r := e.starter(ctx, append([]string{"ls"}, args...)...)
	requireExit(t, r, 0)
	rows := strings.Split(strings.TrimRight(r.out, "\n"), "\n")
	require.Regexp(t, `^ID +STATUS +MODEL +TURN +PARENT +WAITING +STARTED$`, rows[0])
	var ids []string
	for _, row := range rows[1:] {
		ids = append(ids, strings.Fields(row)[0])
	}
	slices.Sort(ids)
	return ids, r
}

// requireLs polls `starter ls` (visibility is eventually consistent) until
// it lists exactly want, and returns its last output.
func (e *env) requireLs(t *testing.T, ctx context.Context, args []string, want ...string) string {
	t.Helper()
	slices.Sort(want)
	var got []string
	var r starterResult
	require.Eventually(t, func() bool {
		got, r = e.lsIDs(t, ctx, args...)
		return slices.Equal(got, want)
	}, 10*time.Second, 50*time.Millisecond, "starter ls %q", args)
	return r.out
}

func TestStarterListsAgentsByStatusModelParentAndTurn(t *testing.T) {
	e := newEnv(t)
	g := newGate(t)
	e.startWorker(g.tool())
	ctx := ctxT(t, 30*time.Second)

	parent, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "ls-parent", Options: signals.AgentOptions{Provider: "scripted", Model: "m0"}, First: "/say parent",
	})
	require.NoError(t, err)
	child, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "ls-child", Options: signals.AgentOptions{Provider: "scripted", Model: "o'brien", Parent: parent.ID}, First: "/say child",
	})
	require.NoError(t, err)
	for _, h := range []*agent.Handle{parent, child} {
		_, err := h.WaitIdle(ctx)
		require.NoError(t, err)
	}
	startGated(t, ctx, e, g, "ls-runner")

	out := e.requireLs(t, ctx, []string{"--parent", "ls-parent"}, "ls-child")
	require.Regexp(t, `\nls-child +idle +scripted/o'brien +1 +ls-parent +- +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$`, out)
	e.requireLs(t, ctx, nil, "ls-child", "ls-parent", "ls-runner")
	e.requireLs(t, ctx, []string{"--status", "running"}, "ls-runner")
	e.requireLs(t, ctx, []string{"--status", "idle", "--turn", "1"}, "ls-child", "ls-parent")
	e.requireLs(t, ctx, []string{"--model", "scripted/o'brien"}, "ls-child")
	e.requireLs(t, ctx, []string{"--model", "scripted/m0", "--turn", "1"}, "ls-parent")
	e.requireLs(t, ctx, []string{"--turn", "2"})
	// Flag values cannot change the query: unquoted, the first would list
	// every agent and the second would leave the string unterminated.
	e.requireLs(t, ctx, []string{"--parent", "x' OR WorkflowType = 'tether.Agent"})
	e.requireLs(t, ctx, []string{"--parent", `x\`})

	ids, r := e.lsIDs(t, ctx, "--limit", "2")
	require.Len(t, ids, 2)
	require.Equal(t, "starter: more than 2 agents: narrow the filters or raise --limit\n", r.err)

	require.NoError(t, parent.Dispose(ctx, "done"))
	e.requireLs(t, ctx, []string{"--model", "scripted/m0"})
	out = e.requireLs(t, ctx, []string{"--model", "scripted/m0", "--all"}, "ls-parent")
	require.Regexp(t, `\nls-parent +disposed +scripted/m0 +1 +- +- +\d{4}`, out)
}

func TestStarterLsRejectsABadStatusInOneLine(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, 30*time.Second)
	r := e.starter(ctx, "ls", "--status", "busy")
	requireExit(t, r, 2)
	require.Equal(t, "starter: ls: --status \"busy\": want idle or running (run starter without arguments for usage)\n", r.err)
}
