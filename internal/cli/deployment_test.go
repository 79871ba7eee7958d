package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// starter deployment current makes a version current, starter deployment
// counts the open agents on each version, and starter upgrade --all moves
// the agents on another version (and only those) to the current one.
func TestStarterDeploymentAndUpgradeMoveAgentsToTheCurrentVersion(t *testing.T) {
	s := newBareServer(t)
	c := s.ts.GetDefaultClient()
	ctx := ctxT(t, 3*time.Minute)
	start := func(build string) {
		w := worker.New(c, signals.TaskQueue, worker.Options{DeploymentOptions: worker.DeploymentOptions{UseVersioning: true,
			Version: worker.WorkerDeploymentVersion{DeploymentName: signals.TaskQueue, BuildID: build}}})
		workflows.RegisterVersioned(w, workflows.Config{})
		w.RegisterActivityWithOptions(func(context.Context, signals.ModelInput) (signals.ModelOutput, error) {
			return signals.ModelOutput{Text: "ok", FinishReason: eventlog.FinishStop}, nil
		}, activity.RegisterOptions{Name: signals.ModelActivity})
		require.NoError(t, w.Start())
		t.Cleanup(w.Stop)
	}
	current := func(build string) (r result) {
		require.Eventually(t, func() bool { // once the version's workers polled every queue
			r = s.run(ctx, nil, "deployment", "current", build)
			return r.code == 0
		}, time.Minute, 300*time.Millisecond)
		return r
	}
	buildOf := func(id string) string {
		d, err := c.DescribeWorkflowExecution(ctx, id, "")
		require.NoError(t, err)
		return d.GetWorkflowExecutionInfo().GetVersioningInfo().GetDeploymentVersion().GetBuildId()
	}
	r := s.run(ctx, nil, "deployment", "current", "nobuild")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.err, "describe deployment tether (workers with --versioning create it)")

	start("A")
	current("A")
	for _, id := range []string{"u1", "u2"} {
		_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: signals.TaskQueue}, signals.AgentWorkflow,
			signals.AgentInput{Options: signals.AgentOptions{Hooks: []string{}}, First: &signals.Message{ID: "m0", Content: "hi"}})
		require.NoError(t, err)
		s.must(ctx, "wait", id)
	}
	start("B")
	r = current("B")
	require.Contains(t, r.out, "B is current in deployment tether (was A)")
	require.Eventually(t, func() bool {
		out := s.must(ctx, "deployment").out
		return containsLine(out, "A", "2") && containsLine(out, "B", "current")
	}, time.Minute, 500*time.Millisecond, "two agents on A, B current")

	r = s.must(ctx, "upgrade", "--all", "--pace", "0")
	require.Contains(t, r.out, "2 of 2 agents not on B upgraded")
	require.Eventually(t, func() bool { return buildOf("u1") == "B" && buildOf("u2") == "B" }, time.Minute, 200*time.Millisecond)
	require.Eventually(t, func() bool {
		return s.must(ctx, "upgrade", "--all").out == "0 of 0 agents not on B upgraded\n"
	}, time.Minute, 500*time.Millisecond, "once visibility caught up, nothing is left to move")
	for _, id := range []string{"u1", "u2"} {
		d, err := c.DescribeWorkflowExecution(ctx, id, "")
		require.NoError(t, err)
		require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, d.GetWorkflowExecutionInfo().GetStatus())
		s.must(ctx, "dispose", id)
	}
}

// containsLine: some line of out starts with first and holds want.
func containsLine(out, first, want string) bool {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 1 && f[0] == first && strings.Contains(l, want) {
			return true
		}
	}
	return false
}
