package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// A model switch signalled right before a followup update applies to the
// followup's turn on a real server, whether or not the two land in one
// workflow task; with -record-histories the run joins the replay corpus
// (a run recorded with signals_first in its run config).
func TestAModelSwitchThenAFollowupRunsTheTurnOnTheNewModel(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "switching", Options: signals.AgentOptions{Model: "m1"}, First: "/say one"})
	require.NoError(t, err)
	waitIdle(ctx, t, h)
	for i, model := range []string{"m2", "m3", "m4"} {
		require.NoError(t, h.SelectModel(ctx, signals.Selection{Provider: "scripted", Model: model}))
		_, err = h.Followup(ctx, "/say again", agent.Acknowledged())
		require.NoError(t, err)
		waitIdle(ctx, t, h)
		steps := ofType[eventlog.StepStart](requireProjects(ctx, t, e, h))
		require.Len(t, steps, i+2)
		require.Equal(t, model, steps[i+1].Model, "turn %d runs on the model selected before it", i+2)
	}
	require.NoError(t, h.Dispose(ctx, "over"))
	waitFor(t, 30*time.Second, "the agent to close", func() bool {
		desc, err := e.c.DescribeWorkflowExecution(ctx, h.ID, "")
		return err == nil && desc.WorkflowExecutionInfo.CloseTime != nil
	})
	events, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	record(t, "signals-first", events)
}
