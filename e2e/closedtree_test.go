package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// A closed agent reads how it ended in a tree (signals.Ended), though its
// status query still answers (and would say idle); an open one reads its
// status.
func TestATreeShowsClosedAgentsAsClosedWithHowTheyEnded(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, time.Minute)
	_, err := e.agents.Create(ctx, agent.CreateOptions{ID: "tr-root"})
	require.NoError(t, err)
	for _, id := range []string{"tr-done", "tr-term", "tr-idle"} {
		_, err := e.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: signals.TaskQueue,
			TypedSearchAttributes: temporal.NewSearchAttributes(workflows.ParentKey.ValueSet("tr-root"))},
			signals.AgentWorkflow, signals.AgentInput{})
		require.NoError(t, err)
	}
	done, err := e.agents.Attach(ctx, "tr-done")
	require.NoError(t, err)
	require.NoError(t, done.Dispose(ctx, "test"))
	require.NoError(t, e.c.TerminateWorkflow(ctx, "tr-term", "", "test"))
	waitFor(t, 30*time.Second, "visibility to list the three", func() bool {
		kids, _, err := e.agents.List(ctx, agent.ListOptions{Parent: "tr-root", Closed: true})
		return err == nil && len(kids) == 3
	})

	tree, err := e.agents.Tree(ctx, "tr-root")
	require.NoError(t, err)
	require.Equal(t, "idle", tree.Status)
	require.Equal(t, map[string]string{"tr-done": "disposed", "tr-term": "terminated", "tr-idle": "idle"},
		statuses(tree.Children))
	r := e.starter(ctx, "tree", "tr-root")
	requireExit(t, r, 0)
	require.Contains(t, r.out, "\n  tr-term  terminated\n", r.out)
	require.Contains(t, r.out, "\n  tr-done  disposed", r.out)

	require.NoError(t, e.c.TerminateWorkflow(ctx, "tr-root", "", "test"))
	tree, err = e.agents.Tree(ctx, "tr-root")
	require.NoError(t, err)
	require.Equal(t, "terminated", tree.Status, "the root too")
	require.Equal(t, "idle", statuses(tree.Children)["tr-idle"])
}

func statuses(ns []*agent.Node) map[string]string {
	out := map[string]string{}
	for _, n := range ns {
		out[n.ID] = n.Status
	}
	return out
}
