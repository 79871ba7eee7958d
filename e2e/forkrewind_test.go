package e2e

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// contents are the message contents of a chat completions request body,
// system prompt first.
func contents(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(body, &req))
	out := make([]string, len(req.Messages))
	for i, m := range req.Messages {
		out[i] = m.Content
	}
	return out
}

// turns is the conversation of prompts qs with the recording model's
// answers, after the system prompt.
func turns(qs ...string) []string {
	out := []string{"be brief"}
	for _, q := range qs {
		out = append(out, q, "answer to: "+q)
	}
	return out
}

// Forks and rewinds compose: a fork of a rewound agent sees the rewound
// conversation; a fork at a position before the rewind sees the turns the
// rewind later went past; a fork rewinds its own turns like any agent,
// byte for byte, and a turn before its fork point, which its runs never
// held, is refused naming Fork; a fork of a rewound fork goes on from the
// fork's rewound conversation.
func TestForksOfRewoundAgentsAndRewindsOfForksSeeTheConversationTheyStandAt(t *testing.T) {
	e, m := forkEnv(t)
	e.startWorker()
	ctx := ctxT(t, 3*time.Minute)
	src, err := e.agents.Create(ctx, agent.CreateOptions{ID: "fr-src",
		Options: signals.AgentOptions{Provider: "openai", SystemPrompt: "be brief", Hooks: []string{}}, First: "q1"})
	require.NoError(t, err)
	say := func(h *agent.Handle, q string) {
		t.Helper()
		_, err := h.Followup(ctx, q)
		require.NoError(t, err)
		_, err = h.WaitIdle(ctx)
		require.NoError(t, err)
	}
	_, err = src.WaitIdle(ctx)
	require.NoError(t, err)
	for i := 2; i <= 4; i++ {
		say(src, fmt.Sprintf("q%d", i))
	}
	log, err := src.Log(ctx)
	require.NoError(t, err)
	beforeRewind := idleAfterTurns(t, log)
	require.Len(t, beforeRewind, 4)

	_, err = src.Rewind(ctx, 2)
	require.NoError(t, err)
	say(src, "q3b") // turn 5: the model sees q1, q2, q3b

	// A fork of the rewound agent at its end sees the rewound conversation.
	log, err = src.Log(ctx)
	require.NoError(t, err)
	end := log[len(log)-1].Seq
	f1, err := src.Fork(ctx, end, agent.AppendMessage("next"))
	require.NoError(t, err)
	_, err = f1.WaitIdle(ctx)
	require.NoError(t, err)
	got := m.requests(f1.ID)
	require.Len(t, got, 1)
	require.Equal(t, append(turns("q1", "q2", "q3b"), "next"), contents(t, got[0]))

	// A fork at the end of turn 4, which the rewind later went past, sees
	// turns 3 and 4 as they were.
	f2, err := src.Fork(ctx, beforeRewind[3], agent.AppendMessage("q5"))
	require.NoError(t, err)
	_, err = f2.WaitIdle(ctx)
	require.NoError(t, err)
	got = m.requests(f2.ID)
	require.Len(t, got, 1)
	require.Equal(t, append(turns("q1", "q2", "q3", "q4"), "q5"), contents(t, got[0]))

	// The fork rewinds its own turns byte for byte; the source's turns
	// before its fork point are not its to rewind to.
	say(f1, "more")
	sent := m.requests(f1.ID)
	require.Len(t, sent, 2)
	st, err := f1.Status(ctx)
	require.NoError(t, err)
	forkTurn := st.Turn - 1 // the fork's first turn, the one "next" opened
	_, err = f1.Rewind(ctx, forkTurn)
	require.NoError(t, err)
	say(f1, "more")
	sent = m.requests(f1.ID)
	require.Len(t, sent, 3)
	require.Equal(t, string(sent[1]), string(sent[2]), "the fork's turn after the rewind sends the request it first sent")
	_, err = f1.Rewind(ctx, 1)
	require.ErrorIs(t, err, signals.ErrRewindLost, "turn 1 is the source's, before the fork point")
	require.ErrorContains(t, err, "fork")

	// A fork of the rewound fork goes on from its rewound conversation.
	log, err = f1.Log(ctx)
	require.NoError(t, err)
	f3, err := f1.Fork(ctx, log[len(log)-1].Seq, agent.AppendMessage("last"))
	require.NoError(t, err)
	_, err = f3.WaitIdle(ctx)
	require.NoError(t, err)
	got = m.requests(f3.ID)
	require.Len(t, got, 1)
	require.Equal(t, append(turns("q1", "q2", "q3b", "next", "more"), "last"), contents(t, got[0]))
	say(f1, "last")
	sent = m.requests(f1.ID)
	require.Equal(t, string(sent[len(sent)-1]), string(asSentBy(got[0], f3.ID, f1.ID)),
		"the fork of the fork sends what the fork itself sends next")
}

// Forking a parent does not fork its children: the fork of a parent with a
// detached child has no children, and the child's next report reaches the
// source only. A fork of the child is a root: no parent, and nothing it
// does reaches the child's parent.
func TestAForkedParentHasNoChildrenAndAForkedChildIsARoot(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, 2*time.Minute)
	parent, err := e.agents.Create(ctx, agent.CreateOptions{ID: "fork-parent", Options: signals.AgentOptions{
		Tools: []string{signals.SpawnTool}}, First: spawnLine("/say first report", "detach")})
	require.NoError(t, err)
	child := firstReport(ctx, t, parent)
	waitIdle(ctx, t, parent)
	st, err := parent.Status(ctx)
	require.NoError(t, err)
	require.Len(t, st.Children, 1)

	log, err := parent.Log(ctx)
	require.NoError(t, err)
	boundaries := idleAfterTurns(t, log)
	fp, err := parent.Fork(ctx, boundaries[len(boundaries)-1])
	require.NoError(t, err)
	fst, err := fp.Status(ctx)
	require.NoError(t, err)
	require.Empty(t, fst.Children, "the fork has none of its source's children")

	ch, err := e.agents.Attach(ctx, child)
	require.NoError(t, err)
	_, err = ch.Followup(ctx, "/say second report")
	require.NoError(t, err)
	waitFor(t, 30*time.Second, "the second report, at the source", func() bool {
		log, err := parent.Log(ctx)
		return err == nil && len(ofType[eventlog.ChildSettled](events(t, log))) == 2
	})
	flog, err := fp.Log(ctx)
	require.NoError(t, err)
	require.Empty(t, ofType[eventlog.ChildSettled](events(t, flog)), "no report reaches the fork")

	clog, err := ch.Log(ctx)
	require.NoError(t, err)
	cb := idleAfterTurns(t, clog)
	fc, err := ch.Fork(ctx, cb[len(cb)-1], agent.AppendMessage("/say a fork's answer"))
	require.NoError(t, err)
	_, err = fc.WaitIdle(ctx)
	require.NoError(t, err)
	d, err := e.c.DescribeWorkflowExecution(ctx, fc.ID, "")
	require.NoError(t, err)
	require.Empty(t, d.GetWorkflowExecutionInfo().GetParentExecution().GetWorkflowId(), "a forked child is a root")
	_, isParent := d.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields()[signals.AttrParent]
	require.False(t, isParent, "with no TetherParent")
	waitIdle(ctx, t, parent)
	log, err = parent.Log(ctx)
	require.NoError(t, err)
	require.Len(t, ofType[eventlog.ChildSettled](events(t, log)), 2, "the forked child's turn reports to nobody")
	for _, h := range []*agent.Handle{fc, fp, parent} {
		require.NoError(t, h.Dispose(ctx, "test over"))
	}
}
