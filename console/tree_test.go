package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/console/transcript"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// fakeVisibility lists agents by parent for the tree's IN queries; status
// queries find no worker.
type fakeVisibility struct {
	client.Client
	kids map[string][]string // parent -> children, oldest first
}

var inList = regexp.MustCompile(`IN \(([^)]*)\)`)

func (f fakeVisibility) ListWorkflow(_ context.Context, req *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	var out []*workflowpb.WorkflowExecutionInfo
	for _, q := range strings.Split(inList.FindStringSubmatch(req.GetQuery())[1], ", ") {
		parent := strings.Trim(q, "'")
		for i, id := range f.kids[parent] {
			attrs := map[string]*commonpb.Payload{}
			for k, v := range map[string]any{signals.AttrParent: parent, signals.AttrStatus: "idle",
				signals.AttrTurn: int64(1), signals.AttrModel: "scripted/x"} {
				attrs[k], _ = converter.GetDefaultDataConverter().ToPayload(v)
			}
			out = append(out, &workflowpb.WorkflowExecutionInfo{Execution: &commonpb.WorkflowExecution{WorkflowId: id},
				Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, StartTime: timestamppb.New(time.Unix(int64(i), 0)),
				SearchAttributes: &commonpb.SearchAttributes{IndexedFields: attrs}})
		}
	}
	return &workflowservice.ListWorkflowExecutionsResponse{Executions: out}, nil
}

func (fakeVisibility) QueryWorkflowWithOptions(context.Context, *client.QueryWorkflowWithOptionsRequest) (*client.QueryWorkflowWithOptionsResponse, error) {
	return nil, fmt.Errorf("no worker")
}

// GetWorkflow is a run whose result cannot be read.
func (fakeVisibility) GetWorkflow(context.Context, string, string) client.WorkflowRun {
	return noResult{}
}

type noResult struct{ client.WorkflowRun }

func (noResult) Get(context.Context, any) error { return fmt.Errorf("no result") }

func TestTheTreeStopsAtItsDepthAndNodeBoundsAndCountsWhatItLeftOut(t *testing.T) {
	kids := map[string][]string{}
	chain := "a"
	for d := 2; d <= MaxTreeDepth+2; d++ { // a chain two levels deeper than shown
		next := fmt.Sprintf("a%d", d)
		kids[chain], chain = []string{next}, next
	}
	for i := range MaxTreeNodes {
		kids["b"] = append(kids["b"], fmt.Sprintf("b%02d", i))
	}
	s, err := New(Options{Client: fakeVisibility{kids: kids}})
	require.NoError(t, err)

	deep := s.tree(context.Background(), "deep", []*transcript.Child{{ID: "a", Mode: eventlog.ChildDetach}})
	n, depth := deep.Children[0], 1
	for len(n.Children) > 0 {
		require.Len(t, n.Children, 1)
		n, depth = n.Children[0], depth+1
	}
	require.Equal(t, MaxTreeDepth, depth, "the chain is shown to the depth bound")
	require.Equal(t, 1, n.More, "and its next agent counted")
	require.Equal(t, "idle", n.Status)
	require.Equal(t, "turn 1 · scripted/x", n.Facts())
	require.True(t, deep.open())

	wide := s.tree(context.Background(), "wide", []*transcript.Child{{ID: "b"}, {ID: "c", Ended: "completed"}})
	b := wide.Children[0]
	require.Len(t, b.Children, MaxTreeNodes-2, "the node bound counts the log's children first")
	require.Equal(t, 2, b.More, "b's children beyond the node bound are counted")
	require.Equal(t, "b00", b.Children[0].ID, "oldest first")
	require.False(t, wide.Children[1].Open, "the log says c ended")

	for _, tc := range []struct {
		root *treeNode
		more int
		leaf string
	}{{deep, 1, n.ID}, {wide, 2, "b27"}} {
		html, err := s.partial("status", statusView{ID: tc.root.ID, Tree: tc.root})
		require.NoError(t, err)
		require.Contains(t, html, fmt.Sprintf(`<li class="more">… %d more</li>`, tc.more))
		require.Contains(t, html, `<a href="/agents/`+url.PathEscape(tc.leaf)+`">`+tc.leaf+`</a>`)
	}
}

// attach attaches to agent id once it has started (a spawn answers first).
func (e *env) attach(ctx context.Context, id string) *agent.Handle {
	e.t.Helper()
	var h *agent.Handle
	require.Eventually(e.t, func() bool {
		var err error
		h, err = e.agents.Attach(ctx, id)
		return err == nil
	}, 20*time.Second, 20*time.Millisecond, "agent %s never started", id)
	return h
}

// pageUntil reads the page at path until ok says it shows what the test
// waits for (visibility and queries catch up a moment late), for up to 30 s.
func (e *env) pageUntil(path string, ok func(body string) bool) string {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		body := e.get(path).Body // on the test's goroutine: e.get may fail the test
		if ok(body) {
			return body
		}
		require.True(e.t, time.Now().Before(deadline), "the page:\n%s", body)
		time.Sleep(100 * time.Millisecond)
	}
}

// childLi is the tree entry of agent id in html, without the entries
// under it: its link, chip and facts.
func childLi(html, id string) string {
	i := strings.Index(html, `<li data-child="`+id+`">`)
	if i < 0 {
		return ""
	}
	li := html[i:]
	for _, end := range []string{"<ul", "</li>"} {
		if j := strings.Index(li, end); j >= 0 {
			li = li[:j]
		}
	}
	return li
}

func TestThePageShowsTheWholeTreeWithEachAgentsStatusTurnModelAndUsage(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "elder", "/say hi", signals.AgentOptions{})
	child, err := h.Spawn(ctx, signals.SpawnArgs{Task: "/say from the child"})
	require.NoError(t, err)
	ch := e.attach(ctx, child)
	grandchild, err := ch.Spawn(ctx, signals.SpawnArgs{Task: "/say from the grandchild"})
	require.NoError(t, err)

	kids := e.pageUntil("/agents/elder", func(kids string) bool { // statuses come from visibility and queries
		g := childLi(kids, grandchild)
		return strings.Contains(childLi(kids, child), "idle") && strings.Contains(g, "idle") && strings.Contains(g, " out")
	})
	kids = section(t, kids, "children")
	c, g := childLi(kids, child), childLi(kids, grandchild)
	require.Less(t, strings.Index(kids, c), strings.Index(kids, g), "the grandchild is under the child")
	require.Contains(t, kids[strings.Index(kids, c):], `<ul class="children">`+"\n"+`    <li data-child="`+grandchild+`">`)
	for id, li := range map[string]string{child: c, grandchild: g} {
		require.Contains(t, li, `<a href="/agents/`+url.PathEscape(id)+`">`+id+`</a>`)
		require.Contains(t, li, `<span class="chip idle">idle</span>`)
		require.Regexp(t, `detach · turn \d+ · (\d+ reported · )?scripted/scripted-demo`, li, "mode, turn, the model the worker resolved")
		require.Regexp(t, `\d+ in · \d+ out`, li, "usage")
	}
}

// Closed agents keep their usage in the tree: a child's from its reports
// in the parent's log, a grandchild's (which no log the page reads holds)
// from its result.
func TestClosedAgentsDeepInTheTreeKeepTheirUsage(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "closer", "/say hi", signals.AgentOptions{})
	child, err := h.Spawn(ctx, signals.SpawnArgs{Task: "/say from the child"})
	require.NoError(t, err)
	ch := e.attach(ctx, child)
	grandchild, err := ch.Spawn(ctx, signals.SpawnArgs{Task: "/say from the grandchild"})
	require.NoError(t, err)
	_, err = e.attach(ctx, grandchild).WaitIdle(ctx)
	require.NoError(t, err)
	require.NoError(t, ch.Dispose(ctx, "done"), "disposing the child disposes the grandchild")

	kids := e.pageUntil("/agents/closer", func(kids string) bool { // closing reaches visibility a moment later
		return strings.Contains(childLi(kids, child), "chip disposed") && strings.Contains(childLi(kids, grandchild), "chip disposed")
	})
	kids = section(t, kids, "children")
	for _, id := range []string{child, grandchild} {
		require.Regexp(t, `[1-9]\d* in · [1-9]\d* out`, childLi(kids, id), "the usage of %s", id)
	}
}

// A child's status reaches its parent's page by the parent's feed, though
// nothing changes in the parent's log.
func TestAChildsStatusReachesItsParentsPageLiveWithoutTheParentsLog(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "minder", "/say hi", signals.AgentOptions{Tools: []string{"gate"}})
	child, err := h.Spawn(ctx, signals.SpawnArgs{Task: "/say ready"})
	require.NoError(t, err)
	ch := e.attach(ctx, child)
	_, err = ch.WaitIdle(ctx)
	require.NoError(t, err)
	// The child's report reaches the parent as a message that runs a turn
	// of its own; WaitIdle alone can return before the report arrives.
	require.Eventually(t, func() bool {
		log, err := h.Log(ctx)
		if err != nil {
			return false
		}
		settled := -1
		for i, env := range log {
			if env.Type == eventlog.TypeChildSettled {
				settled = i
			}
			if settled >= 0 && env.Type == eventlog.TypeTurnEnd {
				return true
			}
		}
		return false
	}, 30*time.Second, 50*time.Millisecond, "the child's report settled in a turn of the parent")
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	events := e.stream(ctx, "minder", nil, "?from=0")
	entry := func(ev sse) string {
		if ev.Event != "status" {
			return ""
		}
		var st struct{ HTML string }
		require.NoError(t, json.Unmarshal([]byte(ev.Data), &st))
		return childLi(st.HTML, child)
	}
	got := until(t, ctx, events, func(ev sse) bool { return strings.Contains(entry(ev), "idle") })
	at := got[len(got)-1].ID

	_, err = ch.Followup(ctx, "/tool gate {}")
	require.NoError(t, err)
	e.gate.waitStarted(t, ctx)
	got = until(t, ctx, events, func(ev sse) bool {
		li := entry(ev)
		return strings.Contains(li, `<span class="chip running">running</span>`) && strings.Contains(li, "turn 2")
	})
	for _, ev := range got {
		require.Equal(t, "status", ev.Event, "nothing moved in the parent's log")
		require.Equal(t, at, ev.ID)
	}
}
