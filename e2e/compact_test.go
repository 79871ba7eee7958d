package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// An operator compacts an idle agent's context: the summary comes from a
// model activity, is recorded once, the next turn's model call sees it, and
// the projection from history restores it.
func TestIdleCompactionSummarisesAndTheNextTurnUsesIt(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	long := strings.Repeat("lorem ipsum ", 60)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "compacting", Options: signals.AgentOptions{Tools: []string{"echo"},
		Compaction: &signals.Compaction{KeepRecent: 2}}, First: `/tool echo {"text":"first ` + long + `"}`})
	require.NoError(t, err)
	for _, m := range []string{`/tool echo {"text":"second ` + long + `"}`, "/say third answer"} {
		_, err = h.WaitIdle(ctx)
		require.NoError(t, err)
		_, err = h.Followup(ctx, m)
		require.NoError(t, err)
	}
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	m, err := h.RunMaintenance(ctx, signals.TaskCompact)
	require.NoError(t, err)
	require.Less(t, m.After, m.Before)
	_, err = h.Followup(ctx, "/say after compaction")
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	log, err := h.Log(ctx)
	require.NoError(t, err)
	evs := events(t, log)
	compacted := ofType[eventlog.ContextCompacted](evs)
	require.Len(t, compacted, 1)
	require.True(t, strings.HasPrefix(compacted[0].Text, "Summary of "), compacted[0].Text)
	conv := eventlog.ConversationOf(evs)
	require.Equal(t, eventlog.SummaryPrefix+compacted[0].Text, conv[0].Content)

	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	projected, err := projection.FromHistory(history)
	require.NoError(t, err)
	requireSameLog(t, log, projected)
}
