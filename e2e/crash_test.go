package e2e

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// A worker killed with SIGKILL in the middle of a tool activity: a new worker
// finishes the conversation, every accepted message is answered (including
// one accepted while no worker ran), the tool that had completed does not
// run again, and each tool result appears exactly once in the log.
func TestWorkerKilledMidToolConversationCompletes(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	ctx := ctxT(t, 2*time.Minute)
	first := e.startWorkerProcess(dir, "block")

	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID:      "crash",
		Options: signals.AgentOptions{Tools: []string{"echo", "slow"}},
		First:   "/tool echo {}\n/tool slow {}",
	})
	require.NoError(t, err)
	waitFor(t, time.Minute, "both tools to start", func() bool {
		return len(readLines(t, dir, "slow")) >= 2 && slices.Contains(readLines(t, dir, "echo"), "done")
	})
	require.NoError(t, first.Process.Kill())
	_, _ = first.Process.Wait()

	// Accepted by the server while no worker runs.
	require.NoError(t, e.c.SignalWorkflow(ctx, h.ID, "", signals.FollowupSignal.Name,
		signals.Message{ID: "while-down", Content: "/tool echo {}"}))

	e.startWorkerProcess(dir, "fast")
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)

	log, err := h.Log(ctx)
	require.NoError(t, err)
	evs := events(t, log)
	for id, o := range eventlog.ConsumedWork(evs) {
		require.Equal(t, eventlog.ProgressDone, o.Progress, "message %s", id)
		require.Equal(t, eventlog.EndCompleted, o.TurnEnd, "message %s", id)
	}
	results := ofType[eventlog.ToolResult](evs)
	require.Len(t, results, 3)
	seen := map[string]bool{}
	for _, r := range results {
		require.False(t, r.IsError, r.Content)
		require.False(t, seen[r.CallID], "result for %s recorded twice", r.CallID)
		seen[r.CallID] = true
	}
	// The echo of turn 1 completed before the crash and never ran again.
	echo := readLines(t, dir, "echo")
	require.Equal(t, 1, countPair(echo, "done", "crash/1/1/call_1_0"), "echo lines: %v", echo)
	// The slow tool ran twice with the same idempotency key: once killed.
	slow := readLines(t, dir, "slow")
	require.Equal(t, 2, countPair(slow, "start", "crash/1/1/call_1_1"), "slow lines: %v", slow)
}

func countPair(fields []string, verb, key string) int {
	n := 0
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i] == verb && fields[i+1] == key {
			n++
		}
	}
	return n
}
