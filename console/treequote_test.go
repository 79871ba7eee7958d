package console

import (
	"html/template"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// A raw client may give an agent any ID. Two agents under one parent, one
// whose ID ends in a backslash and one whose ID holds a quote, are named
// in one visibility query of the tree's next level: the console's own
// quoting once read that backslash as escaping the closing quote, which
// broke the query and lost the level (the quoted one's child). Quoted by
// agent's List, the query holds, and the page and agent's Tree show the
// child. A third sibling's ID is a query that, pasted unquoted, would
// match every agent with a parent: named as a parent it matches only its
// own children (none). (The embedded server's SQLite visibility matches
// no value that holds a backslash or a double quote, so the backslashed
// agent's own children are not looked for here.)
func TestTheTreeLevelOfAnIDEndingInABackslashBesideOneWithAQuoteStillListsItsAgents(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, 2*time.Minute)
	h := e.idle(ctx, "qroot", "/say hi", signals.AgentOptions{})
	child, err := h.Spawn(ctx, signals.SpawnArgs{Task: "/say from the child"})
	require.NoError(t, err)
	e.attach(ctx, child)
	for id, parent := range map[string]string{`qkid\`: child, "qkid'sib": child, widen: child} {
		raw(t, e, id, parent)
	}
	require.Eventually(t, func() bool { // the grandchild once its parent is listed: visibility lags
		kids, _, err := e.agents.List(ctx, agent.ListOptions{Parent: child})
		return err == nil && len(kids) == 3
	}, 30*time.Second, 100*time.Millisecond)
	raw(t, e, "qgrand", "qkid'sib")

	body := e.pageUntil("/agents/qroot", func(body string) bool {
		return strings.Contains(childLi(body, "qgrand"), "idle")
	})
	kids := section(t, body, "children")
	sib := childLi(kids, template.HTMLEscapeString("qkid'sib"))
	require.NotEmpty(t, sib)
	require.Less(t, strings.Index(kids, sib), strings.Index(kids, childLi(kids, "qgrand")), "the grandchild is under qkid'sib")
	require.NotEmpty(t, childLi(kids, `qkid\`))
	require.NotEmpty(t, childLi(kids, template.HTMLEscapeString(widen)))
	grand, _, err := e.agents.List(ctx, agent.ListOptions{Parents: []string{`qkid\`, widen, "qkid'sib"}})
	require.NoError(t, err)
	require.Len(t, grand, 1, "no ID widens the query: %v", grand)
	require.Equal(t, "qgrand", grand[0].ID)

	tree, err := e.agents.Tree(ctx, "qroot")
	require.NoError(t, err)
	require.Len(t, tree.Children, 1)
	under := map[string][]string{}
	var sibs []string
	for _, k := range tree.Children[0].Children {
		sibs = append(sibs, k.ID)
		for _, g := range k.Children {
			under[k.ID] = append(under[k.ID], g.ID)
		}
	}
	require.ElementsMatch(t, []string{`qkid\`, "qkid'sib", widen}, sibs)
	require.Equal(t, map[string][]string{"qkid'sib": {"qgrand"}}, under, "agent's Tree finds the same")
}

// widen is an agent ID that, pasted into a query unquoted, would match
// every agent with a parent.
const widen = "qw') OR TetherParent IS NOT NULL OR TetherParent IN ('"

// raw starts agent id under parent as a raw client may: any ID, the
// parent named by its search attribute.
func raw(t *testing.T, e *env, id, parent string) {
	t.Helper()
	_, err := e.c.ExecuteWorkflow(ctxT(t, 10*time.Second), client.StartWorkflowOptions{ID: id, TaskQueue: signals.TaskQueue,
		TypedSearchAttributes: temporal.NewSearchAttributes(workflows.ParentKey.ValueSet(parent))},
		signals.AgentWorkflow, signals.AgentInput{})
	require.NoError(t, err)
}
