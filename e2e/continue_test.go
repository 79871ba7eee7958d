package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// An agent continues as new every two turns while messages arrive in a
// tight loop: nothing accepted during a switch is lost, every message is
// answered, the chained log is complete and gap-free across runs, and the
// projection of the chain's histories equals it.
func TestContinueAsNewCarriesEverythingUnderSteadyTraffic(t *testing.T) {
	inBothModes(t, continueAsNewUnderSteadyTraffic)
}

func continueAsNewUnderSteadyTraffic(t *testing.T, e *env) {
	e.cfg.MaxRunTurns = 2
	e.startWorker(echoTool())
	ctx := ctxT(t, 2*time.Minute)

	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "long-lived", First: `/tool echo {"text":"0"}`,
		Options: signals.AgentOptions{SystemPrompt: "carry me", Tools: []string{"echo"}},
	})
	require.NoError(t, err)
	const messages = 12
	for i := 1; i <= messages; i++ {
		op := h.Followup
		if i%4 == 0 {
			op = h.Steer
		}
		var opts []agent.SendOption
		if i%3 == 0 { // updates too: validated by whichever run is open
			opts = append(opts, agent.Acknowledged())
		}
		_, err := op(ctx, fmt.Sprintf(`/tool echo {"text":"%d"}`, i), opts...)
		require.NoError(t, err)
	}
	var st signals.StatusView
	require.Eventually(t, func() bool { // WaitIdle may land between two runs
		st, err = h.WaitIdle(ctx)
		return err == nil && st.Idle()
	}, time.Minute, 50*time.Millisecond)
	require.GreaterOrEqual(t, st.Runs, 4, "at least three switches")

	log, err := h.Log(ctx)
	require.NoError(t, err)
	for i, env := range log {
		require.EqualValues(t, i, env.Seq, "gap-free from 0 across runs")
	}
	evs := events(t, log)
	work := eventlog.ConsumedWork(evs)
	require.Len(t, work, messages+1)
	for id, o := range work {
		require.Equal(t, eventlog.ProgressDone, o.Progress, "message %s", id)
		require.Equal(t, eventlog.EndCompleted, o.TurnEnd, "message %s", id)
	}
	require.Len(t, ofType[eventlog.SystemMessage](evs), 1, "the unchanged prompt is not re-recorded in later runs")
	var echoed []string
	for _, r := range ofType[eventlog.ToolResult](evs) {
		echoed = append(echoed, r.Content)
	}
	for i := 0; i <= messages; i++ {
		if i%4 != 0 || i == 0 { // followups get a turn of their own and call the tool
			require.Contains(t, echoed, fmt.Sprintf("echo: %d", i))
		}
	}

	runs, err := projection.FetchChain(ctx, e.c, h.ID)
	require.NoError(t, err)
	require.Equal(t, st.Runs, len(runs))
	last := runs[len(runs)-1]
	require.Equal(t, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, last[0].GetEventType())
	projected, err := projection.FromChain(runs...)
	require.NoError(t, err)
	requireSameLog(t, log, projected)
	record(t, e.prefix+"continue-as-new-first-run", runs[0])
	record(t, e.prefix+"continue-as-new-second-run", runs[1])
}

// An agent that continues as new after every turn, sent its next message
// the moment it is idle, again and again: each message lands on whichever
// run is open (the one closing to continue as new refuses it, and the
// client sends it to the next), so no followup fails and none is lost.
func TestAFollowupTheMomentARunContinuesAsNewIsDelivered(t *testing.T) {
	e := newEnv(t)
	e.cfg.MaxRunTurns = 1
	e.startWorker()
	ctx := ctxT(t, 3*time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "hasty", First: "/say 0"})
	require.NoError(t, err)
	const turns = 20
	for i := 1; i < turns; i++ {
		_, err = h.WaitIdle(ctx)
		require.NoError(t, err, "turn %d", i)
		_, err = h.Followup(ctx, fmt.Sprintf("/say %d", i))
		require.NoError(t, err, "followup %d", i)
	}
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	work := eventlog.ConsumedWork(events(t, log))
	require.Len(t, work, turns, "every message taken once")
	for id, o := range work {
		require.Equal(t, eventlog.EndCompleted, o.TurnEnd, "message %s", id)
	}
}
