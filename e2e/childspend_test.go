package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Issue 19: a detached child disposed while in a turn sends the report of
// that turn and then its end. Temporal delivered the two signals in
// reverse order 7 times in 7, and the parent, hearing of the end first,
// dropped the late report: it counted 26 tokens where the tree spent 104.
// A child now sends its reports one at a time, so the parent records the
// canceled turn and then the end, and counts every token the child spent.
func TestADetachedChildDisposedMidTurnIsCountedWhole(t *testing.T) {
	e := newEnv(t)
	g := newGate(t)
	e.startWorker(g.tool(), echoTool())
	ctx := ctxT(t, 2*time.Minute)
	for i := range 3 {
		h, err := e.agents.Create(ctx, agent.CreateOptions{ID: fmt.Sprintf("spender-%d", i), Options: signals.AgentOptions{
			Tools: []string{signals.SpawnTool, "gate"}}, First: spawnLine("/say first report", "detach")})
		require.NoError(t, err)
		var child string
		waitFor(t, 30*time.Second, "the first report", func() bool {
			log, err := h.Log(ctx)
			if err != nil {
				return false
			}
			evs := events(t, log)
			if started := ofType[eventlog.ChildStarted](evs); len(started) > 0 {
				child = started[0].ChildID
			}
			return len(ofType[eventlog.ChildSettled](evs)) == 1
		})
		waitIdle(ctx, t, h)
		ch, err := e.agents.Attach(ctx, child)
		require.NoError(t, err)
		_, err = ch.Followup(ctx, "/tool gate {}")
		require.NoError(t, err)
		g.waitStarted(t, ctx)
		require.NoError(t, ch.Dispose(ctx, "by the operator"))

		var res signals.AgentResult
		require.NoError(t, e.c.GetWorkflow(ctx, child, "").Get(ctx, &res), "the child closes")
		var evs []eventlog.Event
		waitFor(t, 30*time.Second, "the child's end in its parent's log", func() bool {
			log, err := h.Log(ctx)
			if err != nil {
				return false
			}
			evs = events(t, log)
			return len(ofType[eventlog.ChildEnded](evs)) == 1
		})
		settled := ofType[eventlog.ChildSettled](evs)
		require.Len(t, settled, 2, "both settled turns recorded, the canceled one before the end")
		require.Equal(t, eventlog.EndCanceled, settled[1].Reason)
		var spent eventlog.Usage
		for _, s := range settled {
			spent = spent.Add(s.Usage)
		}
		spent = spent.Add(ofType[eventlog.ChildEnded](evs)[0].Usage)
		require.Equal(t, res.Usage, spent, "the parent counted every token the child spent")
		require.Positive(t, res.Usage.InputTokens)
		requireProjects(ctx, t, e, h)
		require.NoError(t, h.Dispose(ctx, ""))
		if i == 0 { // the corpus: a child's ordered reports, and its parent counting them
			var closed signals.AgentResult
			require.NoError(t, e.c.GetWorkflow(ctx, h.ID, "").Get(ctx, &closed))
			requireReplaysAndProjects(ctx, t, e, h, "child-disposed-mid-turn-parent")
			requireReplaysAndProjects(ctx, t, e, ch, "child-disposed-mid-turn")
		}
	}
}
