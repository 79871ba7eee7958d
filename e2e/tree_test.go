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

// Tree reads a level of the tree in one visibility query, and an agent
// appears once: two agents started (past the Go client, as any SDK may)
// each naming the other as TetherParent do not make it loop.
func TestATreeWhoseParentsFormALoopEnds(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, time.Minute)
	for id, parent := range map[string]string{"loop-a": "loop-b", "loop-b": "loop-a", "loop-c": "loop-a"} {
		_, err := e.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: signals.TaskQueue,
			TypedSearchAttributes: temporal.NewSearchAttributes(workflows.ParentKey.ValueSet(parent))},
			signals.AgentWorkflow, signals.AgentInput{})
		require.NoError(t, err)
	}
	waitFor(t, 30*time.Second, "visibility to list the three", func() bool {
		kids, _, err := e.agents.List(ctx, agent.ListOptions{Parents: []string{"loop-a", "loop-b"}})
		return err == nil && len(kids) == 3
	})

	tree, err := e.agents.Tree(ctx, "loop-a")
	require.NoError(t, err)
	ids := func(ns []*agent.Node) []string {
		var out []string
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}
	require.ElementsMatch(t, []string{"loop-b", "loop-c"}, ids(tree.Children))
	for _, c := range tree.Children {
		require.Empty(t, c.Children, "loop-a is the root: %s does not list it again", c.ID)
		require.Equal(t, "idle", c.Status, "each node asked for its status")
	}
}
