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

// On a real server: a switch to a provider the worker lacks is refused
// with a typed error through the update, and recorded as refused when it
// comes as a raw signal; an agent that named no model is listed by the
// provider and model the worker resolved; once disposed, TetherStatus says
// disposed. With -record-histories the run joins the replay corpus (a run
// recorded with model_truth and end_status in its config).
func TestAModelSwitchTheWorkerCannotRunIsRefusedAndTheResolvedModelIsListed(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "truthful", First: "/say one"})
	require.NoError(t, err)
	waitIdle(ctx, t, h)
	e.requireListed(t, ctx, `TetherModel = "scripted/scripted-demo"`, h.ID)

	err = h.SelectModel(ctx, signals.Selection{Provider: "no-such-provider"})
	require.ErrorIs(t, err, signals.ErrInvalidOptions)
	require.ErrorIs(t, err, agent.ErrRejected)
	require.Contains(t, err.Error(), `provider "no-such-provider" is not offered by this worker`)
	require.NoError(t, e.c.SignalWorkflow(ctx, h.ID, "", signals.SelectModelSignal.Name, signals.Selection{Provider: "raw-nope"}))
	require.NoError(t, h.SelectModel(ctx, signals.Selection{Provider: "scripted", Model: "m2"}))
	_, err = h.Followup(ctx, "/say two", agent.Acknowledged())
	require.NoError(t, err)
	waitIdle(ctx, t, h)

	sel := ofType[eventlog.ModelSelected](requireProjects(ctx, t, e, h))
	require.Len(t, sel, 3, "resolved, the raw refusal, the accepted switch; the refused update is not in history")
	require.True(t, sel[0].Resolved)
	require.Equal(t, eventlog.Selection{Provider: "scripted", Model: "scripted-demo"}, sel[0].Selection)
	require.Equal(t, "raw-nope", sel[1].Provider)
	require.Contains(t, sel[1].Refused, "not offered")
	require.Equal(t, eventlog.Selection{Provider: "scripted", Model: "m2"}, sel[2].Selection)
	e.requireListed(t, ctx, `TetherModel = "scripted/m2"`, h.ID)
	found, _, err := e.agents.List(ctx, agent.ListOptions{Model: "scripted/m2"})
	require.NoError(t, err)
	require.Len(t, found, 1)

	require.NoError(t, h.Dispose(ctx, "over"))
	waitFor(t, 30*time.Second, "the agent to close", func() bool {
		desc, err := e.c.DescribeWorkflowExecution(ctx, h.ID, "")
		return err == nil && desc.WorkflowExecutionInfo.CloseTime != nil
	})
	e.requireListed(t, ctx, `TetherStatus = "disposed" AND ExecutionStatus = "Completed"`, h.ID)
	events, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	record(t, "model-truth", events)
}
