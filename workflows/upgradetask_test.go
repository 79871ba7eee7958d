package workflows

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// Agents started on build A of a versioned deployment, with B then made
// current: the upgrade task moves one (answered, the pinned run continues
// as new at its idle, the next run runs on B and answers there);
// --upgrade-after-turns moves another at the end of its second turn in the
// run, once the server told it B is its target; a third, told neither,
// stays on A. An unknown task, and the upgrade task on a run under rules
// from before it, are refused with the reason and record nothing.
func TestUpgradeMovesAPinnedAgentToTheCurrentVersion(t *testing.T) {
	ts := testserver.New(t)
	c := ts.GetDefaultClient()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	const queue, deployment = "upgrading", "tether-upgrading"
	cfg := Config{NoSearchAttributes: true, UpgradeAfterTurns: 2}
	start := func(buildID string) worker.Worker {
		w := worker.New(c, queue, worker.Options{DeploymentOptions: worker.DeploymentOptions{UseVersioning: true,
			Version: worker.WorkerDeploymentVersion{DeploymentName: deployment, BuildID: buildID}}})
		RegisterVersioned(w, cfg)
		w.RegisterActivityWithOptions(func(context.Context, signals.ModelInput) (signals.ModelOutput, error) {
			return answer("ok"), nil
		}, activity.RegisterOptions{Name: signals.ModelActivity})
		require.NoError(t, w.Start())
		return w
	}
	makeCurrent := func(buildID string) {
		h := c.WorkerDeploymentClient().GetHandle(deployment)
		require.Eventually(t, func() bool {
			_, err := h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: buildID})
			return err == nil
		}, time.Minute, 200*time.Millisecond)
	}
	describe := func(id string) (runID, buildID string, status enumspb.WorkflowExecutionStatus) {
		d, err := c.DescribeWorkflowExecution(ctx, id, "")
		require.NoError(t, err)
		i := d.GetWorkflowExecutionInfo()
		return i.GetExecution().GetRunId(), i.GetVersioningInfo().GetDeploymentVersion().GetBuildId(), i.GetStatus()
	}
	followup := func(id, msg string) {
		require.NoError(t, c.SignalWorkflow(ctx, id, "", signals.FollowupSignal.Name, signals.Message{ID: eventlog.MessageID(msg), Content: msg}))
	}
	a := start("A")
	defer a.Stop()
	makeCurrent("A")
	first := map[string]string{} // agent → its first run
	for _, id := range []string{"by-task", "by-turns", "stays"} {
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, signals.AgentWorkflow,
			signals.AgentInput{Options: signals.AgentOptions{Hooks: []string{}}, First: &signals.Message{ID: "m0", Content: "hello"}})
		require.NoError(t, err)
		first[id] = run.GetRunID()
		waitAnswers(ctx, t, c, id, 1)
	}
	b := start("B")
	defer b.Stop()
	makeCurrent("B")

	// Refusals first: nothing is queued, the run stays where it is.
	_, err := maintain(ctx, c, "by-task", "defrag")
	require.ErrorContains(t, err, `unknown maintenance task: "defrag"`)

	got, err := maintain(ctx, c, "by-task", signals.TaskUpgrade)
	require.NoError(t, err)
	require.Equal(t, signals.TaskUpgrade, got.Task)
	require.Eventually(t, func() bool {
		run, build, st := describe("by-task")
		return run != first["by-task"] && build == "B" && st == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	}, time.Minute, 100*time.Millisecond, "the upgraded agent's next run runs on B")
	followup("by-task", "on-b")
	waitTurn(ctx, t, c, "by-task", 2)
	requireContinuedOn(ctx, t, c, "by-task", first["by-task"], "A")

	// The second agent's turn 2 is its run's second: it moves at its end.
	followup("by-turns", "two")
	require.Eventually(t, func() bool {
		run, build, _ := describe("by-turns")
		return run != first["by-turns"] && build == "B"
	}, time.Minute, 100*time.Millisecond, "two turns in a run whose target is B: the next run is on B")
	requireContinuedOn(ctx, t, c, "by-turns", first["by-turns"], "A")
	waitTurn(ctx, t, c, "by-turns", 2)

	run, build, st := describe("stays")
	require.Equal(t, first["stays"], run, "an agent neither asked nor past its turns stays in its run")
	require.Equal(t, "A", build)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, st)

	for _, id := range []string{"by-task", "by-turns", "stays"} {
		require.NoError(t, c.SignalWorkflow(ctx, id, "", signals.DisposeSignal.Name, signals.Dispose{Cause: "test over"}))
	}
}

// A run under the rules before the upgrade task (here an older build's,
// on its own queue) refuses it with the reason, and goes on answering.
func TestARunUnderOlderRulesRefusesTheUpgradeTask(t *testing.T) {
	ts := testserver.New(t)
	c := ts.GetDefaultClient()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w, _ := startBuild(t, c, "older", Config{NoSearchAttributes: true}, build{Latest: loop.RulesUpgradeTask - 1})
	defer w.Stop()
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "old-rules", TaskQueue: "older"}, signals.AgentWorkflow,
		signals.AgentInput{Options: signals.AgentOptions{Hooks: []string{}}, First: &signals.Message{ID: "m0", Content: "hello"}})
	require.NoError(t, err)
	waitAnswers(ctx, t, c, "old-rules", 1)
	_, err = maintain(ctx, c, "old-rules", signals.TaskUpgrade)
	require.ErrorContains(t, err, fmt.Sprintf("this run follows loop rules %d, which have no upgrade task", loop.RulesUpgradeTask-1))
	got, err := maintain(ctx, c, "old-rules", signals.TaskCompact)
	require.NoError(t, err, "the run is unharmed")
	require.Equal(t, signals.TaskCompact, got.Task)
	require.NoError(t, c.SignalWorkflow(ctx, "old-rules", "", signals.FollowupSignal.Name, signals.Message{ID: "m1", Content: "again"}))
	waitAnswers(ctx, t, c, "old-rules", 2)
	d, err := c.DescribeWorkflowExecution(ctx, "old-rules", "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, d.GetWorkflowExecutionInfo().GetStatus())
	require.NoError(t, c.SignalWorkflow(ctx, "old-rules", "", signals.DisposeSignal.Name, signals.Dispose{Cause: "test over"}))
}

// waitTurn waits until the agent's current run is idle after turn n (a
// continued run's log starts at its seed, so it is counted by turns).
func waitTurn(ctx context.Context, t *testing.T, c client.Client, id string, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		v, err := c.QueryWorkflow(ctx, id, "", signals.StatusQuery.Name, struct{}{})
		if err != nil {
			return false
		}
		var st signals.StatusView
		require.NoError(t, v.Get(&st))
		require.LessOrEqual(t, st.Turn, n, "a turn too many")
		return st.Turn == n && st.Idle()
	}, time.Minute, 100*time.Millisecond)
}

// maintain runs a maintenance task through the maintain update.
func maintain(ctx context.Context, c client.Client, id string, task signals.MaintenanceTask) (signals.Maintained, error) {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: signals.MaintainUpdate.Name,
		Args: []any{signals.Maintain{Task: task}}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err != nil {
		return signals.Maintained{}, err
	}
	var out signals.Maintained
	return out, h.Get(ctx, &out)
}

// requireContinuedOn: the agent's first run ran on build and ended by
// continuing as new.
func requireContinuedOn(ctx context.Context, t *testing.T, c client.Client, id, runID, build string) {
	t.Helper()
	d, err := c.DescribeWorkflowExecution(ctx, id, runID)
	require.NoError(t, err)
	i := d.GetWorkflowExecutionInfo()
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, i.GetStatus())
	require.Equal(t, build, i.GetVersioningInfo().GetDeploymentVersion().GetBuildId(), "the pinned run stayed on its version")
}
