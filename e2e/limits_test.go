package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// Issue 10's limits, sent the way a client that is not the Go client would
// (raw starts and signals, as any SDK or the temporal CLI sends them): each
// ends with a typed error or a bounded, recorded outcome.

// An agent started with a tool its worker lacks fails at once; a client
// waiting for it hears that it closed, instead of asking until its
// deadline for queries the run never registered.
func TestWaitingForAnAgentThatFailedAtStartSaysItClosed(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, 30*time.Second)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "no-such-tool", First: "hi",
		Options: signals.AgentOptions{Tools: []string{"rm_rf"}}})
	require.NoError(t, err, "the Go client cannot know the worker's tools")
	_, err = h.WaitIdle(ctx) // without the check it asks until ctx ends
	require.ErrorIs(t, err, agent.ErrClosed)
	require.Contains(t, err.Error(), `no-such-tool is failed: agent options are invalid: tool "rm_rf" is not offered by this worker`)
}

func TestARawStartWithOptionsAnAgentCannotRunWithFailsWithTheReason(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, 30*time.Second)
	for name, opts := range map[string]signals.AgentOptions{
		"unknown tool":          {Tools: []string{"echo", "rm_rf"}},
		"unknown provider":      {Provider: "no-such-provider"},
		"thousands of parallel": {MaxParallelTools: 4000},
		"enormous prompt":       {SystemPrompt: strings.Repeat("p", signals.MaxSystemPromptSize+1)},
	} {
		t.Run(name, func(t *testing.T) {
			if opts.Tools == nil && opts.Provider == "" { // the client cannot know the worker's tools and providers
				_, err := e.agents.Create(ctx, agent.CreateOptions{Options: opts, First: "hi"})
				require.ErrorIs(t, err, signals.ErrInvalidOptions, "the Go client refuses before starting")
			}
			run, err := e.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: signals.TaskQueue}, signals.AgentWorkflow,
				signals.AgentInput{Options: opts, First: &signals.Message{ID: "m", Content: "hi"}})
			require.NoError(t, err)
			err = run.Get(ctx, nil)
			var app *temporal.ApplicationError
			require.True(t, errors.As(err, &app), "%v", err)
			require.Equal(t, "tether.InvalidInput", app.Type())
			require.Contains(t, app.Error(), "agent options are invalid")
		})
	}
}

func TestRawSignalsWithHugeCausesAndUnknownModelsLeaveTheAgentWorking(t *testing.T) {
	e := newEnv(t)
	g := newGate(t)
	e.startWorker(g.tool(), echoTool())
	ctx := ctxT(t, time.Minute)
	h := startGated(t, ctx, e, g, "raw-limits")
	_, err := h.Inject(ctx, "pending")
	require.NoError(t, err)
	huge := strings.Repeat("c", 1<<20)
	require.NoError(t, e.c.SignalWorkflow(ctx, h.ID, "", signals.SelectModelSignal.Name, signals.Selection{Provider: "no-such-provider"}))
	require.NoError(t, e.c.SignalWorkflow(ctx, h.ID, "", signals.CancelSignal.Name, signals.Cancel{Cause: huge}))
	waitIdle(ctx, t, h)
	_, err = h.Followup(ctx, "/say still here")
	require.NoError(t, err)
	waitIdle(ctx, t, h)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	evs := events(t, log)
	for _, env := range log {
		require.Less(t, len(env.Data), 4*signals.MaxCauseBytes, "seq %d %s holds %d bytes", env.Seq, env.Type, len(env.Data))
	}
	for _, ms := range ofType[eventlog.ModelSelected](evs) {
		require.True(t, ms.Resolved || ms.Refused != "", "a provider the worker lacks is refused, not selected: %+v", ms)
	}
	answers := ofType[eventlog.AssistantMessage](evs)
	require.Equal(t, "still here", answers[len(answers)-1].Text, "the next turn runs on the provider it had")
	require.NoError(t, e.c.SignalWorkflow(ctx, h.ID, "", signals.DisposeSignal.Name, signals.Dispose{Cause: huge}))
	run := e.c.GetWorkflow(ctx, h.ID, "")
	require.NoError(t, run.Get(ctx, nil))
	desc, err := e.c.DescribeWorkflowExecution(ctx, h.ID, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.GetWorkflowExecutionInfo().GetStatus())
}

func TestRejectedSignalsCannotGrowAnIdleRunPastTheHistoryLimit(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, 2*time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "flooded", First: "/say hi"})
	require.NoError(t, err)
	waitIdle(ctx, t, h)
	huge := strings.Repeat("z", 1900<<10) // under Temporal's 2 MB payload limit, over the agent's message limit
	for i := range 6 {
		require.NoError(t, e.c.SignalWorkflow(ctx, h.ID, "", signals.FollowupSignal.Name,
			signals.Message{ID: eventlog.MessageID("big-" + string(rune('a'+i))), Content: huge}))
	}
	waitFor(t, time.Minute, "the idle run to continue as new", func() bool {
		st, err := h.Status(ctx)
		return err == nil && st.Runs >= 2
	})
	_, err = h.Followup(ctx, "/say after the flood", agent.Acknowledged())
	require.NoError(t, err)
	st := waitIdleStatus(ctx, t, h)
	require.Equal(t, 2, st.Turn, "none of the rejected messages opened a turn")
	runs, err := projection.FetchChain(ctx, e.c, h.ID)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(runs), 2)
	for i, run := range runs {
		size := 0
		for _, ev := range run {
			size += proto.Size(ev)
		}
		require.Less(t, size, 12<<20, "run %d holds %d bytes", i, size)
	}
}

func TestATurnPastFourThousandEventsContinuesAsNewBetweenStepsAndCompletes(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, 5*time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "long-turn", Options: signals.AgentOptions{Tools: []string{"echo"},
		MaxSteps: 600}, First: `/repeat 400 echo {"text":"step"}`})
	require.NoError(t, err)
	st := waitIdleStatus(ctx, t, h)
	require.Equal(t, 1, st.Turn, "one turn")
	require.GreaterOrEqual(t, st.Runs, 2, "continued as new inside it")
	evs := requireProjects(ctx, t, e, h)
	require.Len(t, ofType[eventlog.TurnStart](evs), 1)
	require.Equal(t, eventlog.EndCompleted, ofType[eventlog.TurnEnd](evs)[0].Reason)
	require.Len(t, ofType[eventlog.ToolResult](evs), 400)
	runs, err := projection.FetchChain(ctx, e.c, h.ID)
	require.NoError(t, err)
	total := 0
	for _, run := range runs {
		total += len(run)
	}
	require.Greater(t, total, 4096, "the turn passed 4,096 history events")
}

func waitIdleStatus(ctx context.Context, t *testing.T, h *agent.Handle) signals.StatusView {
	t.Helper()
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	return st
}
