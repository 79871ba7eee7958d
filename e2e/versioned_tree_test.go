package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// A tree under Worker Deployment Versioning, as issue 26 asks what happens
// to children and timers: a parent pinned to v1 has a child whose turn is
// still running and a message scheduled for later; v2 is made current and
// the parent upgraded. The parent's next run is on v2 and every workflow
// task of it v2's; the scheduled message's timer is armed again by that
// run, fires there and opens its turn on v2. The child stays pinned to v1
// (Temporal moves no child with its parent), finishes its turn on v1, and
// its report reaches the parent's run on v2; upgraded in turn, its next
// run is on v2 too and reports there. A child the parent started on v1
// after v2 was made current started on v1, and stays there.
func TestAVersionedTreeMovesParentAndChildEachAtItsOwnUpgrade(t *testing.T) {
	e := newEnv(t)
	g := newGate(t)
	ctx := ctxT(t, 4*time.Minute)
	version := func(build string) worker.Options { return versionOptions("tree", build) }
	makeCurrent := func(build string) { makeCurrent(ctx, t, e, "tree", build) }
	e.workerOptions = version("v1")
	e.startWorker(g.tool(), echoTool())
	makeCurrent("v1")

	parent, err := e.agents.Create(ctx, agent.CreateOptions{ID: "tree-parent", Options: signals.AgentOptions{
		Tools: []string{signals.SpawnTool, "gate"}}, First: spawnLine("/tool gate {}", "detach")})
	require.NoError(t, err)
	g.waitStarted(t, ctx) // the child's turn waits at the gate
	waitIdle(ctx, t, parent)
	_, evs := logOf(t, ctx, parent)
	started := ofType[eventlog.ChildStarted](evs)
	require.Len(t, started, 1)
	child, err := e.agents.Attach(ctx, started[0].ChildID)
	require.NoError(t, err)
	parentRun1, childRun1 := currentRun(ctx, t, e, parent.ID), currentRun(ctx, t, e, child.ID)
	requireOn(ctx, t, e, parent.ID, parentRun1, "v1")
	requireOn(ctx, t, e, child.ID, childRun1, "v1")

	e.workerOptions = version("v2")
	e.startWorker(g.tool(), echoTool())
	makeCurrent("v2")

	// A child the parent starts now, on v1 with v2 current, inherits the
	// parent's version (same task queue), not the current one.
	_, err = parent.Followup(ctx, spawnLine("/say from the second child", "detach"))
	require.NoError(t, err)
	var second string
	waitFor(t, time.Minute, "the second child's report", func() bool {
		log, err := parent.Log(ctx)
		if err != nil {
			return false
		}
		evs := events(t, log)
		if started := ofType[eventlog.ChildStarted](evs); len(started) == 2 {
			second = started[1].ChildID
		}
		return second != "" && settled(evs, second) == 1
	})
	idleAcrossRuns(ctx, t, parent)
	require.Equal(t, parentRun1, currentRun(ctx, t, e, parent.ID))
	secondRun := currentRun(ctx, t, e, second)
	requireOn(ctx, t, e, second, secondRun, "v1")

	// The timer has time for the upgrade (which needs the parent's idle,
	// and it is idle) before it fires; the test checks it had.
	at := time.Now().Add(20 * time.Second)
	_, err = parent.Followup(ctx, "/say on time", agent.At(at), agent.WithMessageID("later"), agent.Acknowledged())
	require.NoError(t, err)
	got, err := parent.RunMaintenance(ctx, signals.TaskUpgrade)
	require.NoError(t, err)
	require.Equal(t, signals.TaskUpgrade, got.Task)

	var parentRun2 string
	waitFor(t, time.Minute, "the parent's next run, on v2", func() bool {
		parentRun2 = currentRun(ctx, t, e, parent.ID)
		return parentRun2 != parentRun1 && buildOf(ctx, t, e, parent.ID, parentRun2) == "v2"
	})
	first := describeRun(ctx, t, e, parent.ID, parentRun1)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, first.GetStatus())
	require.True(t, first.GetCloseTime().AsTime().Before(at),
		"the parent's first run closed at %s, after its scheduled message was due (%s): the machine was too slow for this test",
		first.GetCloseTime().AsTime(), at)
	requireOn(ctx, t, e, parent.ID, parentRun1, "v1")
	requireOn(ctx, t, e, parent.ID, parentRun2, "v2")

	// The child did not move: same run, pinned to v1, its turn still open.
	require.Equal(t, childRun1, currentRun(ctx, t, e, child.ID))
	requireOn(ctx, t, e, child.ID, childRun1, "v1")
	st, err := child.Status(ctx)
	require.NoError(t, err)
	require.False(t, st.Idle(), "the child's turn still waits at the gate")

	g.open(t, ctx) // the child's turn ends on v1; its report goes to the parent's run on v2
	waitFor(t, time.Minute, "the child's report and the scheduled message in the parent's log", func() bool {
		log, err := parent.Log(ctx)
		if err != nil {
			return false
		}
		evs := events(t, log)
		return settled(evs, child.ID) == 1 && slices.ContainsFunc(ofType[eventlog.InboxInserted](evs),
			func(in eventlog.InboxInserted) bool { return in.MessageID == "later" })
	})
	idleAcrossRuns(ctx, t, parent)
	requireOn(ctx, t, e, child.ID, childRun1, "v1")
	require.Equal(t, parentRun2, currentRun(ctx, t, e, parent.ID), "the parent took both in its run on v2")
	requireOn(ctx, t, e, parent.ID, parentRun2, "v2")
	_, evs = logOf(t, ctx, parent)
	upgraded := slices.IndexFunc(evs, func(ev eventlog.Event) bool {
		m, ok := ev.(eventlog.MaintenanceDone)
		return ok && m.Task == string(signals.TaskUpgrade)
	})
	require.GreaterOrEqual(t, upgraded, 0)
	var timer, report int
	for i, ev := range evs {
		if in, ok := ev.(eventlog.InboxInserted); ok && in.MessageID == "later" {
			require.Equal(t, &eventlog.Initiator{Kind: eventlog.ByTimer}, in.From)
			timer = i
		}
		if in, ok := ev.(eventlog.InboxInserted); ok && in.From != nil && in.From.Kind == eventlog.ByChild && in.From.ID == child.ID {
			report = i
		}
	}
	require.Greater(t, timer, upgraded, "the scheduled message arrived after the upgrade")
	require.Greater(t, report, upgraded, "the child's report arrived after the upgrade")
	require.Equal(t, eventlog.ProgressDone, eventlog.ConsumedWork(evs)["later"].Progress, "its turn ran")
	requireTimers(ctx, t, e, parent.ID, parentRun1, 0)
	requireTimers(ctx, t, e, parent.ID, parentRun2, 1)

	// Now the child: upgraded, its next run is on v2 and reports from there.
	_, err = child.RunMaintenance(ctx, signals.TaskUpgrade)
	require.NoError(t, err)
	var childRun2 string
	waitFor(t, time.Minute, "the child's next run, on v2", func() bool {
		childRun2 = currentRun(ctx, t, e, child.ID)
		return childRun2 != childRun1 && buildOf(ctx, t, e, child.ID, childRun2) == "v2"
	})
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, describeRun(ctx, t, e, child.ID, childRun1).GetStatus())
	_, err = child.Followup(ctx, "/say from v2")
	require.NoError(t, err)
	waitFor(t, time.Minute, "the child's second report", func() bool {
		log, err := parent.Log(ctx)
		return err == nil && settled(events(t, log), child.ID) == 2
	})
	idleAcrossRuns(ctx, t, child)
	requireOn(ctx, t, e, child.ID, childRun1, "v1")
	requireOn(ctx, t, e, child.ID, childRun2, "v2")
	idleAcrossRuns(ctx, t, parent)
	requireOn(ctx, t, e, parent.ID, currentRun(ctx, t, e, parent.ID), "v2")
	require.Equal(t, secondRun, currentRun(ctx, t, e, second), "the child not upgraded stays in its run")
	requireOn(ctx, t, e, second, secondRun, "v1")
	require.NoError(t, parent.Dispose(ctx, "test over"))
}

// settled counts the reports of child in a parent's log.
func settled(evs []eventlog.Event, child string) int {
	n := 0
	for _, s := range ofType[eventlog.ChildSettled](evs) {
		if s.ChildID == child {
			n++
		}
	}
	return n
}

// A child the parent waits for (mode wait) holds the parent's turn open, so
// the parent's upgrade, which needs a true idle, waits for the child's
// answer: the answer reaches the parent's run on v1, which ends its turn,
// does the upgrade and continues as new on v2. The child, pinned to v1
// from its start, answered there and was disposed: it never moves.
func TestAParentWaitingForItsChildUpgradesOnceTheChildAnswered(t *testing.T) {
	e := newEnv(t)
	g := newGate(t)
	ctx := ctxT(t, 4*time.Minute)
	e.workerOptions = versionOptions("waiting", "v1")
	e.startWorker(g.tool(), echoTool())
	makeCurrent(ctx, t, e, "waiting", "v1")
	parent, err := e.agents.Create(ctx, agent.CreateOptions{ID: "waiting-parent", Options: signals.AgentOptions{
		Tools: []string{signals.SpawnTool, "gate"}}, First: spawnLine("/tool gate {}", "wait")})
	require.NoError(t, err)
	g.waitStarted(t, ctx)
	_, evs := logOf(t, ctx, parent)
	started := ofType[eventlog.ChildStarted](evs)
	require.Len(t, started, 1)
	child := started[0].ChildID
	parentRun1, childRun := currentRun(ctx, t, e, parent.ID), currentRun(ctx, t, e, child)
	requireOn(ctx, t, e, child, childRun, "v1")

	e.workerOptions = versionOptions("waiting", "v2")
	e.startWorker(g.tool(), echoTool())
	makeCurrent(ctx, t, e, "waiting", "v2")
	up, err := e.c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: parent.ID, UpdateName: signals.MaintainUpdate.Name,
		Args: []any{signals.Maintain{Task: signals.TaskUpgrade}}, WaitForStage: client.WorkflowUpdateStageAccepted})
	require.NoError(t, err, "the upgrade is accepted mid-turn, to run at the next idle")
	require.Equal(t, parentRun1, currentRun(ctx, t, e, parent.ID), "the parent waits for its child, in its run")

	g.open(t, ctx)
	var done signals.Maintained
	require.NoError(t, up.Get(ctx, &done))
	require.Equal(t, signals.TaskUpgrade, done.Task)
	var parentRun2 string
	waitFor(t, time.Minute, "the parent's next run, on v2", func() bool {
		parentRun2 = currentRun(ctx, t, e, parent.ID)
		return parentRun2 != parentRun1 && buildOf(ctx, t, e, parent.ID, parentRun2) == "v2"
	})
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, describeRun(ctx, t, e, parent.ID, parentRun1).GetStatus())
	requireOn(ctx, t, e, parent.ID, parentRun1, "v1")
	idleAcrossRuns(ctx, t, parent)
	requireOn(ctx, t, e, parent.ID, parentRun2, "v2")

	_, evs = logOf(t, ctx, parent)
	answered := slices.IndexFunc(evs, func(ev eventlog.Event) bool {
		r, ok := ev.(eventlog.ToolResult)
		return ok && r.Name == signals.SpawnTool && !r.IsError && r.Outcome == "" && strings.Contains(r.Content, "gate passed")
	})
	upgraded := slices.IndexFunc(evs, func(ev eventlog.Event) bool {
		m, ok := ev.(eventlog.MaintenanceDone)
		return ok && m.Task == string(signals.TaskUpgrade)
	})
	require.GreaterOrEqual(t, answered, 0, "the child's answer is the spawn's result: %v", ofType[eventlog.ToolResult](evs))
	require.Greater(t, upgraded, answered, "the upgrade was done after the child's answer reached the parent")
	waitFor(t, time.Minute, "the answered child's disposal", func() bool {
		return describeRun(ctx, t, e, child, childRun).GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	})
	require.Equal(t, childRun, currentRun(ctx, t, e, child), "the child had one run")
	requireOn(ctx, t, e, child, childRun, "v1")
	require.NoError(t, parent.Dispose(ctx, "test over"))
}

func versionOptions(deployment, build string) worker.Options {
	return worker.Options{DeploymentOptions: worker.DeploymentOptions{UseVersioning: true,
		Version: worker.WorkerDeploymentVersion{DeploymentName: deployment, BuildID: build}}}
}

// makeCurrent makes build current in deployment, once its worker polled.
func makeCurrent(ctx context.Context, t *testing.T, e *env, deployment, build string) {
	t.Helper()
	h := e.c.WorkerDeploymentClient().GetHandle(deployment)
	waitFor(t, time.Minute, "version "+build+" to be made current", func() bool {
		_, err := h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: build})
		return err == nil
	})
}

func currentRun(ctx context.Context, t *testing.T, e *env, id string) string {
	t.Helper()
	return describeRun(ctx, t, e, id, "").GetExecution().GetRunId()
}

func describeRun(ctx context.Context, t *testing.T, e *env, id, run string) *workflowpb.WorkflowExecutionInfo {
	t.Helper()
	d, err := e.c.DescribeWorkflowExecution(ctx, id, run)
	require.NoError(t, err)
	return d.GetWorkflowExecutionInfo()
}

// buildOf is the build of the version the run is on ("" until its first
// workflow task on a new version completed: the server shows a transition).
func buildOf(ctx context.Context, t *testing.T, e *env, id, run string) string {
	return describeRun(ctx, t, e, id, run).GetVersioningInfo().GetDeploymentVersion().GetBuildId()
}

// requireOn: the run is on build by the server's versioning info, pinned,
// and build completed every workflow task of it.
func requireOn(ctx context.Context, t *testing.T, e *env, id, run, build string) {
	t.Helper()
	v := describeRun(ctx, t, e, id, run).GetVersioningInfo()
	require.Equal(t, build, v.GetDeploymentVersion().GetBuildId(), "%s run %s: versioning info %v", id, run, v)
	require.Equal(t, enumspb.VERSIONING_BEHAVIOR_PINNED, v.GetBehavior(), "%s run %s", id, run)
	var by []string
	it := e.c.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if c := ev.GetWorkflowTaskCompletedEventAttributes(); c != nil {
			by = append(by, c.GetDeploymentVersion().GetBuildId())
		}
	}
	require.NotEmpty(t, by)
	for _, b := range by {
		require.Equal(t, build, b, "%s run %s: a workflow task completed by another version (%v)", id, run, by)
	}
}

// requireTimers: the run started a timer and fired fired of them.
func requireTimers(ctx context.Context, t *testing.T, e *env, id, run string, fired int) {
	t.Helper()
	var n, got int
	it := e.c.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_TIMER_STARTED:
			n++
		case enumspb.EVENT_TYPE_TIMER_FIRED:
			got++
		}
	}
	require.Positive(t, n, "%s run %s armed the scheduled message's timer", id, run)
	require.Equal(t, fired, got, "%s run %s: timers fired", id, run)
}
