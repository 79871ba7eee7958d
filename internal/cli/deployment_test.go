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
	start := func(build string) { startVersioned(t, c, signals.TaskQueue, build) }
	current := func(build string) result { return s.current(ctx, build) }
	buildOf := func(id string) string { return buildOf(ctx, t, c, id) }
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

	// An agent an unversioned worker runs, on a queue of its own: upgrade
	// --all leaves it and says so.
	plain := worker.New(c, "plain", worker.Options{})
	workflows.Register(plain, workflows.Config{})
	plain.RegisterActivityWithOptions(okModel, activity.RegisterOptions{Name: signals.ModelActivity})
	require.NoError(t, plain.Start())
	t.Cleanup(plain.Stop)
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "u3", TaskQueue: "plain"}, signals.AgentWorkflow,
		signals.AgentInput{Options: signals.AgentOptions{Hooks: []string{}}, First: &signals.Message{ID: "m0", Content: "hi"}})
	require.NoError(t, err)
	s.must(ctx, "wait", "u3")
	const unversioned = "1 agent skipped: not versioned (run by workers without --versioning, which pin nothing: " +
		"starter upgrade ID continues one as new, on whichever worker takes it)\n"

	r = s.must(ctx, "upgrade", "--all", "--pace", "0")
	require.Contains(t, r.out, "2 of 2 agents not on B upgraded")
	require.Eventually(t, func() bool { return buildOf("u1") == "B" && buildOf("u2") == "B" }, time.Minute, 200*time.Millisecond)
	require.Eventually(t, func() bool {
		return s.must(ctx, "upgrade", "--all").out == "0 of 0 agents not on B upgraded\n"+unversioned
	}, time.Minute, 500*time.Millisecond, "once visibility caught up, nothing is left to move, and the unversioned agent is counted")
	require.Empty(t, buildOf("u3"), "the unversioned agent was left alone")
	s.must(ctx, "dispose", "u3")
	for _, id := range []string{"u1", "u2"} {
		d, err := c.DescribeWorkflowExecution(ctx, id, "")
		require.NoError(t, err)
		require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, d.GetWorkflowExecutionInfo().GetStatus())
		s.must(ctx, "dispose", id)
	}
}

// starter deployment ramp sends a share of new agents to a build and shows
// it; 0 pauses and --clear stops the ramp; upgrade --all leaves the agents
// on the ramping version (they would start there again) and says so;
// deployment rollback makes the version current before current again, and
// refuses, with the reason, where there is none. Temporal's refusals (a
// build no worker polled, a build already current) reach the operator.
func TestStarterDeploymentRampsAndRollsBack(t *testing.T) {
	s := newBareServer(t)
	c := s.ts.GetDefaultClient()
	ctx := ctxT(t, 3*time.Minute)
	startVersioned(t, c, signals.TaskQueue, "A")
	s.current(ctx, "A")
	r := s.run(ctx, nil, "deployment", "rollback")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.err, "deployment tether has no version to roll back to: A is current and no other version of it has been current")
	r = s.run(ctx, nil, "deployment", "ramp", "nobuild", "10")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.err, "ramp nobuild in deployment tether (a version exists once one of its workers polled: "+
		"is a worker of build nobuild running with --versioning?): ")
	require.Contains(t, r.err, "build ID 'nobuild' not found in Worker Deployment 'tether'", "what Temporal says")
	r = s.run(ctx, nil, "deployment", "ramp", "A", "10")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.err, "is already current", "what Temporal says")
	require.Equal(t, "deployment tether ramps no version\n", s.must(ctx, "deployment", "ramp", "--clear").out)

	startVersioned(t, c, signals.TaskQueue, "B")
	s.current(ctx, "B")
	startVersioned(t, c, signals.TaskQueue, "C")
	require.Eventually(t, func() bool { // once C's workers polled every queue
		r = s.run(ctx, nil, "deployment", "ramp", "C", "25%")
		return r.code == 0
	}, time.Minute, 300*time.Millisecond, "ramp C: %s", r.err)
	require.Equal(t, "C ramps at 25% in deployment tether (current B): that share of new agents, and of agents continuing "+
		"as new, start on it (chosen by agent ID); pinned runs stay where they are\n", r.out)
	out := s.must(ctx, "deployment").out
	require.Contains(t, out, "deployment tether: current B\nramping C at 25%\n")
	require.True(t, containsLine(out, "C", "ramping"), out)

	// At 100% every new agent starts on C; upgrade --all leaves it there.
	s.must(ctx, "deployment", "ramp", "C", "100")
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "on-c", TaskQueue: signals.TaskQueue}, signals.AgentWorkflow,
		signals.AgentInput{Options: signals.AgentOptions{Hooks: []string{}}, First: &signals.Message{ID: "m0", Content: "hi"}})
	require.NoError(t, err)
	s.must(ctx, "wait", "on-c")
	require.Equal(t, "C", buildOf(ctx, t, c, "on-c"))
	d, err := c.DescribeWorkflowExecution(ctx, "on-c", "")
	require.NoError(t, err)
	run := d.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	require.Eventually(t, func() bool {
		return s.must(ctx, "upgrade", "--all").out == "0 of 0 agents not on B upgraded\n"+
			"1 agent skipped: on the ramping version C (the ramp picks by agent ID: a next run would start there again)\n"
	}, time.Minute, 500*time.Millisecond)
	d, err = c.DescribeWorkflowExecution(ctx, "on-c", "")
	require.NoError(t, err)
	require.Equal(t, run, d.GetWorkflowExecutionInfo().GetExecution().GetRunId(), "not asked to upgrade")

	r = s.must(ctx, "deployment", "ramp", "C", "0")
	require.Equal(t, "C ramps at 0% (paused: no new run goes to it) in deployment tether (current B): "+
		"no new run goes to it; deployment ramp --clear stops the ramp\n", r.out)
	require.Contains(t, s.must(ctx, "deployment").out, "ramping C at 0% (paused: no new run goes to it)\n")
	r = s.must(ctx, "deployment", "ramp", "--clear")
	require.Equal(t, "deployment tether ramps no version (was C at 0% (paused: no new run goes to it)): "+
		"new agents start on the current version B\n", r.out)
	require.NotContains(t, s.must(ctx, "deployment").out, "ramping")

	r = s.must(ctx, "deployment", "rollback")
	require.Equal(t, "A is current again in deployment tether (was B): new agents start on it; agents pinned to B stay there "+
		"until they continue as new (starter upgrade --all asks them to now); its workers must still run\n", r.out)
	require.Contains(t, s.must(ctx, "deployment").out, "deployment tether: current A\n")
	r = s.must(ctx, "deployment", "rollback")
	require.Contains(t, r.out, "B is current again in deployment tether (was A)", "a second rollback undoes the first")
	s.must(ctx, "dispose", "on-c")
}

// startVersioned runs the agent workflow on queue as build of the
// deployment named after the default task queue, with a model answering
// "ok".
func startVersioned(t *testing.T, c client.Client, queue, build string) {
	w := worker.New(c, queue, worker.Options{DeploymentOptions: worker.DeploymentOptions{UseVersioning: true,
		Version: worker.WorkerDeploymentVersion{DeploymentName: signals.TaskQueue, BuildID: build}}})
	workflows.RegisterVersioned(w, workflows.Config{})
	w.RegisterActivityWithOptions(okModel, activity.RegisterOptions{Name: signals.ModelActivity})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
}

func okModel(context.Context, signals.ModelInput) (signals.ModelOutput, error) {
	return signals.ModelOutput{Text: "ok", FinishReason: eventlog.FinishStop}, nil
}

// current makes build current, once its workers polled every queue.
func (s *server) current(ctx context.Context, build string) (r result) {
	s.t.Helper()
	require.Eventually(s.t, func() bool {
		r = s.run(ctx, nil, "deployment", "current", build)
		return r.code == 0
	}, time.Minute, 300*time.Millisecond, "current %s: %s", build, r.err)
	return r
}

// buildOf is the deployment version's build the agent's current run is on.
func buildOf(ctx context.Context, t *testing.T, c client.Client, id string) string {
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	return d.GetWorkflowExecutionInfo().GetVersioningInfo().GetDeploymentVersion().GetBuildId()
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
