package e2e

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// A 6-turn agent whose runs continue as new every three turns, rewound to
// the end of turn 2 (a turn of its first run) and sent turn 3's prompt
// again: its model request is the one turn 3 sent, byte for byte. The
// turns rewound past stay in the log (and in the transcript, marked), the
// log projected from history alone is the same, a turn rewound past is
// refused naming a fork, and a rewind to the start sends turn 1's request.
func TestARewindAcrossContinueAsNewThenAFollowupSendsThatTurnsRequestByteForByte(t *testing.T) {
	e, m := forkEnv(t)
	e.startWorker()
	ctx := ctxT(t, 3*time.Minute)
	a, err := e.agents.Create(ctx, agent.CreateOptions{ID: "rewind-src",
		Options: signals.AgentOptions{Provider: "openai", SystemPrompt: "be brief", Hooks: []string{}}, First: "q1"})
	require.NoError(t, err)
	_, err = a.WaitIdle(ctx)
	require.NoError(t, err)
	for i := 2; i <= 6; i++ {
		_, err = a.Followup(ctx, fmt.Sprintf("q%d", i))
		require.NoError(t, err)
		_, err = a.WaitIdle(ctx)
		require.NoError(t, err)
	}
	sent := m.requests(a.ID)
	require.Len(t, sent, 6)
	st, err := a.Status(ctx)
	require.NoError(t, err)
	require.GreaterOrEqual(t, st.Runs, 2, "turn 2 lies in an earlier run of the chain")
	usage := st.Usage

	r, err := a.Rewind(ctx, 2, agent.RewoundBy("ops"))
	require.NoError(t, err)
	require.Equal(t, 2, r.Turn)
	require.Equal(t, 6, r.Past)
	require.Positive(t, r.Seq)
	_, err = a.Followup(ctx, "q3")
	require.NoError(t, err)
	_, err = a.WaitIdle(ctx)
	require.NoError(t, err)
	sent = m.requests(a.ID)
	require.Len(t, sent, 7)
	require.Equal(t, string(sent[2]), string(sent[6]), "the conversation at turn 2 plus the new message")

	_, err = a.Rewind(ctx, 5)
	require.ErrorIs(t, err, signals.ErrRewindLost)
	require.ErrorContains(t, err, "rewound past")
	require.ErrorContains(t, err, "fork")
	_, err = a.Rewind(ctx, 9)
	require.ErrorIs(t, err, signals.ErrInvalidRewind)

	log, err := a.Log(ctx)
	require.NoError(t, err)
	var rewinds []eventlog.SessionRewound
	users := 0
	for _, env := range log {
		ev, err := eventlog.Decode(env)
		require.NoError(t, err)
		switch ev := ev.(type) {
		case eventlog.SessionRewound:
			rewinds = append(rewinds, ev)
			require.Equal(t, r.Seq, env.Seq)
		case eventlog.UserMessage:
			users++
		}
	}
	require.Len(t, rewinds, 1, "refused rewinds record nothing")
	require.Equal(t, eventlog.SessionRewound{ToTurn: 2, At: rewinds[0].At, Past: 6, Keep: 4, By: "ops"}, rewinds[0])
	require.Equal(t, 7, users, "the turns rewound past stay in the log")
	st, err = a.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, 7, st.Turn, "turn numbers go on")
	require.Greater(t, st.Usage.InputTokens, usage.InputTokens, "spending is never refunded")

	var tr bytes.Buffer
	require.NoError(t, agent.WriteTranscript(&tr, a.ID, log))
	require.Contains(t, tr.String(), "── turn 3 (rewound past) ──")
	require.Contains(t, tr.String(), "rewound:     to the end of turn 2 by ops; turns 3 to 6 rewound past")
	require.Contains(t, tr.String(), "── turn 7 ──")

	histories, err := projection.FetchChain(ctx, e.c, a.ID)
	require.NoError(t, err)
	projected, err := projection.FromChain(histories...)
	require.NoError(t, err)
	require.Equal(t, log, projected, "the log projected from history alone holds the rewind")

	// Back to the start: the first prompt again sends the first request.
	_, err = a.Rewind(ctx, 0)
	require.NoError(t, err)
	_, err = a.Followup(ctx, "q1")
	require.NoError(t, err)
	_, err = a.WaitIdle(ctx)
	require.NoError(t, err)
	sent = m.requests(a.ID)
	require.Len(t, sent, 8)
	require.Equal(t, string(sent[0]), string(sent[7]))
	// The run both rewinds were made in, seeded by two runs before it.
	requireChainReplays(ctx, t, e, a.ID, "", "", "rewind-across-continue-as-new")
}
