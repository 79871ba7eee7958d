package e2e

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// noWorkerWithin is how soon a call that needs a worker must say there is
// none: the client's few seconds, and room for a loaded machine.
const noWorkerWithin = 15 * time.Second

// requireNoWorker checks that err, returned after elapsed, is a
// *agent.NoWorkerError naming the agent and its task queue.
func requireNoWorker(t *testing.T, op string, err error, elapsed time.Duration, id, queue string) *agent.NoWorkerError {
	t.Helper()
	var nw *agent.NoWorkerError
	require.ErrorAs(t, err, &nw, op)
	require.ErrorIs(t, err, agent.ErrNoWorker, op)
	require.Equal(t, id, nw.Agent, op)
	require.Equal(t, queue, nw.TaskQueue, op)
	require.Contains(t, err.Error(), fmt.Sprintf("task queue %q of agent %s", queue, id), op)
	require.Contains(t, err.Error(), "worker --task-queue", op+": it says what to check")
	require.Less(t, elapsed, noWorkerWithin, op)
	return nw
}

// With no worker on the agent's task queue (a typo in --task-queue), every
// call that needs one answers within seconds with a *NoWorkerError naming
// the agent and the queue, rather than waiting until killed; reads say they
// come from history; what was sent waits durably, and a worker started
// later runs it: the dispose recorded ends the agent.
func TestWithNoWorkerOnItsQueueEveryCallSaysSoWithinSeconds(t *testing.T) {
	e := newEnv(t)
	// A worker of another queue does not count.
	e.ts.NewWorker("elsewhere", func(r worker.Registry) {
		r.RegisterWorkflowWithOptions(func(workflow.Context) error { return nil }, workflow.RegisterOptions{Name: "noop"})
	})
	queue := signals.TaskQueue // no worker polls it until the end
	ctx := ctxT(t, 5*time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "typo", First: "/say hi"})
	require.NoError(t, err)
	h, err = e.agents.Attach(ctx, "typo")
	require.NoError(t, err)

	timed := func(call func() error) (time.Duration, error) {
		start := time.Now()
		err := call()
		return time.Since(start), err
	}
	took, err := timed(func() error {
		_, err := h.Followup(ctx, "/say later", agent.WithMessageID("later"), agent.Acknowledged())
		return err
	})
	requireNoWorker(t, "followup", err, took, "typo", queue)
	require.ErrorIs(t, err, agent.ErrDeliveryUnknown, "it may be taken when a worker comes")

	for _, c := range []struct {
		name string
		call func() error
	}{
		{"steer", func() error { _, err := h.Steer(ctx, "steered", agent.Acknowledged()); return err }},
		{"approve", func() error { _, err := h.Approve(ctx, "call-1", "me", "ok"); return err }},
		{"spawn", func() error { _, err := h.Spawn(ctx, signals.SpawnArgs{Task: "/say child"}); return err }},
		{"compact", func() error { _, err := h.RunMaintenance(ctx, signals.TaskCompact); return err }},
		{"select-model", func() error { return h.SelectModel(ctx, signals.Selection{Provider: scripted.Name}) }},
		{"wait", func() error { _, err := h.WaitIdle(ctx); return err }},
	} {
		took, err := timed(c.call)
		requireNoWorker(t, c.name, err, took, "typo", queue)
	}

	var st signals.StatusView
	took, err = timed(func() (err error) { st, err = h.Status(ctx); return err })
	require.True(t, requireNoWorker(t, "status", err, took, "typo", queue).FromHistory)
	require.Equal(t, eventlog.StatusIdle, st.Status, "as its search attributes hold it")
	require.Contains(t, err.Error(), "read from the agent's history instead")

	took, err = timed(func() error { _, err := h.Log(ctx); return err })
	require.True(t, requireNoWorker(t, "log", err, took, "typo", queue).FromHistory)

	var tree *agent.Node
	took, err = timed(func() (err error) { tree, err = e.agents.Tree(ctx, "typo"); return err })
	require.NoError(t, err)
	require.Less(t, took, noWorkerWithin, "tree")
	require.Equal(t, agent.StatusStarting, tree.Status, "turn 0 and no worker polls its queue: none has run it")

	took, err = timed(func() error { return h.Dispose(ctx, "bye") })
	requireNoWorker(t, "dispose", err, took, "typo", queue)
	require.Contains(t, err.Error(), "the dispose is recorded")

	// A worker comes: the recorded dispose ends the agent.
	w := e.startWorker()
	require.NoError(t, e.c.GetWorkflow(ctx, "typo", "").Get(ctx, nil))
	_, err = h.Status(ctx)
	require.NoError(t, err, "a disposed agent reads as it last was")
	// And with no worker to answer its query, it still reads disposed, without an error.
	w.Stop()
	st, err = h.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.Disposed)
}

// A caller's resend of a message the agent accepted is told apart from a
// first send: an *agent.AlreadyDeliveredError with the first delivery's
// Ack (the CLI's exit 0, "already delivered"), whether the first copy came
// as an update or as a signal; the same ID with other content is refused
// (signals.ErrReusedID), not answered with the first message's Ack. Each
// message is delivered once and the reused ID's content never.
func TestAResentMessageIsAlreadyDeliveredAndAReusedIDIsRefused(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "resend", First: "/say hello"})
	require.NoError(t, err)
	idleAcrossRuns(ctx, t, h)
	ack, id := agent.Acknowledged(), agent.WithMessageID("r-1")

	first, err := h.Followup(ctx, "/say one", id, ack)
	require.NoError(t, err, "a first send")
	again, err := h.Followup(ctx, "/say one", id, ack)
	var already *agent.AlreadyDeliveredError
	require.ErrorAs(t, err, &already)
	require.ErrorIs(t, err, agent.ErrAlreadyDelivered)
	require.ErrorIs(t, err, signals.ErrDuplicateID, "callers that treat a duplicate as success still do")
	require.Equal(t, first, again, "the first delivery's ack")
	require.Equal(t, first, already.Ack)

	_, err = h.Followup(ctx, "/say other", id, ack)
	require.ErrorIs(t, err, signals.ErrReusedID)
	require.NotErrorIs(t, err, agent.ErrAlreadyDelivered)

	_, err = h.Steer(ctx, "/say two", agent.WithMessageID("r-2"), agent.Unacknowledged())
	require.NoError(t, err)
	recorded(t, h, "r-2")
	again, err = h.Steer(ctx, "/say two", agent.WithMessageID("r-2"), ack)
	require.ErrorIs(t, err, agent.ErrAlreadyDelivered, "the first copy was a signal")
	require.Equal(t, signals.Ack{MessageID: "r-2", Seq: -1}, again)

	idleAcrossRuns(ctx, t, h)
	n := inserted(t, h)
	require.Equal(t, 1, n["r-1"])
	require.Equal(t, 1, n["r-2"])
	for _, m := range ofType[eventlog.AssistantMessage](events(t, mustLog(t, h))) {
		require.NotEqual(t, "other", m.Text, "the reused ID's content was never delivered")
	}
}

// An agent the server terminated mid-turn reads closed, with how and why,
// everywhere: Status no longer says running and in a turn (its status
// query's last answer is stale), WaitIdle returns instead of waiting, and
// Attach and Followup say it was terminated and the reason given.
func TestATerminatedAgentSaysHowAndWhyItEndedNotRunning(t *testing.T) {
	e := newEnv(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	e.startWorker(tools.Tool{
		Name: "block", Description: "Waits until released.",
		Run: func(ctx context.Context, _ tools.Call) (tools.Result, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return tools.Result{Content: "done"}, nil
		},
	})
	ctx := ctxT(t, 2*time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "ended", Options: signals.AgentOptions{Tools: []string{"block"}}, First: "/tool block {}",
	})
	require.NoError(t, err)
	waitFor(t, 30*time.Second, "the turn to run its tool", func() bool {
		st, err := h.Status(ctx)
		require.NoError(t, err)
		return st.InTurn && st.Status == eventlog.StatusRunning
	})
	require.NoError(t, e.c.TerminateWorkflow(ctx, "ended", "", "operator stopped it"))

	requireEnded := func(op string, err error) {
		t.Helper()
		var closed *agent.ClosedError
		require.ErrorAs(t, err, &closed, op)
		require.ErrorIs(t, err, agent.ErrClosed, op)
		require.Equal(t, "terminated", closed.How, op)
		require.Equal(t, "operator stopped it", closed.Reason, op)
		require.Contains(t, err.Error(), "ended is terminated: operator stopped it", op)
	}
	st, err := h.Status(ctx)
	requireEnded("status", err)
	require.False(t, st.InTurn, "the close status wins over the last status")
	require.Equal(t, eventlog.StatusIdle, st.Status)
	require.Positive(t, st.LogLen, "its last state is still read")

	short, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = h.WaitIdle(short)
	requireEnded("wait", err)
	_, err = e.agents.Attach(ctx, "ended")
	requireEnded("attach", err)
	_, err = h.Followup(ctx, "/say hi", agent.Acknowledged())
	requireEnded("followup", err)
	_, err = h.Approve(ctx, "call-1", "me", "ok")
	requireEnded("approve", err)
}

// A call asked while no worker polls yet, as a worker starts, is served:
// the check for a worker looks again while the call waits.
func TestACallAskedAsItsWorkerStartsIsServed(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "starting"})
	require.NoError(t, err)
	time.AfterFunc(2*time.Second, func() { e.startWorker() })
	ack, err := h.Followup(ctx, "/say hi", agent.Acknowledged())
	require.NoError(t, err)
	require.GreaterOrEqual(t, ack.Seq, int64(0), "delivered, at a known position")
	require.Equal(t, 1, inserted(t, h)[ack.MessageID])
}

// Approve, Spawn and RunMaintenance are retried through a transient
// failure under their one request ID, as an acknowledged message is:
// whether the server performed the first attempt (its answer lost) or
// never saw it, the caller gets a success and the agent takes the request
// once. Without the retry the caller saw "Workflow Task in failed state".
func TestRequestsAreRetriedThroughTransientFailuresAndTakenOnce(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, 2*time.Minute)
	for _, performed := range []bool{true, false} {
		id := fmt.Sprintf("requests-%t", performed)
		_, err := e.agents.Create(ctx, agent.CreateOptions{ID: id, Options: signals.AgentOptions{Tools: []string{"echo"},
			Approval: &signals.ApprovalPolicy{Tools: []string{"echo"}}}, First: `/tool echo {"text":"ship"}`})
		require.NoError(t, err)
		h, err := e.agentsThrough(failUpdates(1, performed, failedTask)).Attach(ctx, id)
		require.NoError(t, err)
		call := waitPendingCall(ctx, t, h)
		d, err := h.Approve(ctx, call, "ops", "fine")
		require.NoError(t, err, "approve, performed %t", performed)
		require.Equal(t, call, d.CallID)
		require.Positive(t, d.Seq, "Temporal answers the retried update ID with the first attempt's answer")
		idleAcrossRuns(ctx, t, h)

		h, err = e.agentsThrough(failUpdates(1, performed, failedTask)).Attach(ctx, id)
		require.NoError(t, err)
		child, err := h.Spawn(ctx, signals.SpawnArgs{Task: "/say child"})
		require.NoError(t, err, "spawn, performed %t", performed)
		require.NotEmpty(t, child)

		h, err = e.agentsThrough(failUpdates(1, performed, failedTask)).Attach(ctx, id)
		require.NoError(t, err)
		m, err := h.RunMaintenance(ctx, signals.TaskCompact)
		require.NoError(t, err, "compact, performed %t", performed)
		require.Equal(t, signals.TaskCompact, m.Task)
		require.Positive(t, m.Before, "the task's own figures, not zeros")

		evs := events(t, mustLog(t, h))
		require.Len(t, ofType[eventlog.ToolResult](evs), 1, "the approved call ran once")
		require.Len(t, ofType[eventlog.ChildStarted](evs), 1, "one child")
	}
}

// With its worker down, once the worker's last polls are older than the
// client counts (the server lists a poller for minutes), the log is read
// from the agent's history, as the worker last wrote it, and says so; the
// status comes from its search attributes.
func TestWithItsWorkerDownTheLogIsReadFromHistory(t *testing.T) {
	e := newEnv(t)
	w := e.startWorker()
	ctx := ctxT(t, 6*time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "down", First: "/say hi"})
	require.NoError(t, err)
	idleAcrossRuns(ctx, t, h)
	want := mustLog(t, h)
	w.Stop()

	var got []eventlog.Envelope
	var nw *agent.NoWorkerError
	start := time.Now()
	waitFor(t, 5*time.Minute, "the stopped worker's polls to age", func() bool {
		qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		got, err = h.Log(qctx)
		return errors.As(err, &nw)
	})
	t.Logf("the log was read from history %s after the worker stopped", time.Since(start).Round(time.Second))
	require.True(t, nw.FromHistory)
	require.Equal(t, "down", nw.Agent)
	require.Equal(t, want, got, "the log as the worker wrote it")

	st, err := h.Status(ctx)
	require.ErrorAs(t, err, &nw)
	require.True(t, nw.FromHistory)
	require.Equal(t, signals.StatusView{Status: eventlog.StatusIdle, Turn: 1}, st, "as its search attributes hold it")
}
