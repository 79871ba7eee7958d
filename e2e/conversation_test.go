package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

func TestMultiTurnConversationWithToolCalls(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)

	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID:      "multi-turn",
		Options: signals.AgentOptions{SystemPrompt: "You are terse.", Tools: []string{"echo"}},
		First:   `/tool echo {"text":"one"}`,
	})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	_, err = h.Followup(ctx, "/tool echo {\"text\":\"two\"}\n/tool echo {\"text\":\"three\"}")
	require.NoError(t, err)
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, eventlog.StatusIdle, st.Status)
	require.Equal(t, 2, st.Turn)

	log, err := h.Log(ctx)
	require.NoError(t, err)
	evs := events(t, log)
	results := ofType[eventlog.ToolResult](evs)
	require.Len(t, results, 3)
	require.Equal(t, []string{"echo: one", "echo: two", "echo: three"},
		[]string{results[0].Content, results[1].Content, results[2].Content})
	ends := ofType[eventlog.TurnEnd](evs)
	require.Len(t, ends, 2)
	for _, end := range ends {
		require.Equal(t, eventlog.EndCompleted, end.Reason)
	}
	answers := ofType[eventlog.AssistantMessage](evs)
	require.Contains(t, answers[len(answers)-1].Text, "echo: three")
	for id, o := range eventlog.ConsumedWork(evs) {
		require.Equal(t, eventlog.ProgressDone, o.Progress, "message %s", id)
	}
	// Seq is gap-free from 0.
	for i, env := range log {
		require.EqualValues(t, i, env.Seq)
	}
}
