package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	updatepb "go.temporal.io/api/update/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// inserted counts the inbox/inserted events of each message ID.
func inserted(t *testing.T, h *agent.Handle) map[eventlog.MessageID]int {
	t.Helper()
	n := map[eventlog.MessageID]int{}
	for _, ev := range ofType[eventlog.InboxInserted](events(t, mustLog(t, h))) {
		n[ev.MessageID]++
	}
	return n
}

// recorded waits until the agent's log holds message id.
func recorded(t *testing.T, h *agent.Handle, id eventlog.MessageID) {
	t.Helper()
	waitFor(t, 30*time.Second, "message "+string(id)+" to be recorded", func() bool { return inserted(t, h)[id] > 0 })
}

func idleAcrossRuns(ctx context.Context, t *testing.T, h *agent.Handle) signals.StatusView {
	t.Helper()
	var st signals.StatusView
	require.Eventually(t, func() bool { // WaitIdle may land between two runs
		var err error
		st, err = h.WaitIdle(ctx)
		return err == nil && st.Idle()
	}, time.Minute, 20*time.Millisecond)
	return st
}

// A sender that retries with the message ID it chose delivers the message
// once: as a signal the resend is dropped by the workflow, as an update it
// is answered with the first delivery's ack or ErrDuplicateID, through every
// operation.
func TestResentMessageIDIsDeliveredOnce(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "dedupe", First: "/say hello"})
	require.NoError(t, err)
	idleAcrossRuns(ctx, t, h)
	ack := agent.Acknowledged()

	// Signal first: a signalled resend is dropped, an acknowledged one is a duplicate.
	id := agent.WithMessageID("order-1")
	a, err := h.Followup(ctx, "/say one", id, agent.Unacknowledged())
	require.NoError(t, err)
	require.Equal(t, eventlog.MessageID("order-1"), a.MessageID)
	recorded(t, h, "order-1")
	_, err = h.Followup(ctx, "/say one", id, agent.Unacknowledged())
	require.NoError(t, err, "the server takes the signal; the agent ignores it")
	_, err = h.Followup(ctx, "/say one", id, ack)
	require.ErrorIs(t, err, signals.ErrDuplicateID)

	// Update first: the resend is already delivered, with the first ack.
	first, err := h.Followup(ctx, "/say two", agent.WithMessageID("order-2"), ack)
	require.NoError(t, err)
	again, err := h.Followup(ctx, "/say two", agent.WithMessageID("order-2"), ack)
	require.ErrorIs(t, err, agent.ErrAlreadyDelivered)
	require.Equal(t, first, again, "the first delivery's ack")
	_, err = h.Followup(ctx, "/say two", agent.WithMessageID("order-2"), agent.Unacknowledged())
	require.NoError(t, err)

	// Every operation, and IDs across operations.
	for _, op := range []struct {
		name string
		send func(opts ...agent.SendOption) (signals.Ack, error)
	}{
		{"steer", func(o ...agent.SendOption) (signals.Ack, error) { return h.Steer(ctx, "steered", o...) }},
		{"inject", func(o ...agent.SendOption) (signals.Ack, error) { return h.Inject(ctx, "injected", o...) }},
		{"send", func(o ...agent.SendOption) (signals.Ack, error) {
			return h.Send(ctx, "/say sent", eventlog.NextTurn, true, o...)
		}},
	} {
		id := agent.WithMessageID(eventlog.MessageID(op.name + "-1"))
		_, err := op.send(id, agent.Unacknowledged())
		require.NoError(t, err, op.name)
		recorded(t, h, eventlog.MessageID(op.name+"-1"))
		_, err = op.send(id, ack)
		require.ErrorIs(t, err, signals.ErrDuplicateID, op.name)
		_, err = h.Followup(ctx, "/say other op", id, ack)
		require.ErrorIs(t, err, signals.ErrReusedID, "%s: an ID is one message, whatever the operation: other content under it is refused", op.name)
	}

	// An acknowledged resend may overtake a signal not yet recorded: then
	// the resend is the copy accepted and the signal the one dropped.
	_, err = h.Followup(ctx, "/say race", agent.WithMessageID("race-1"), agent.Unacknowledged())
	require.NoError(t, err)
	if _, err := h.Followup(ctx, "/say race", agent.WithMessageID("race-1"), ack); err != nil {
		require.ErrorIs(t, err, signals.ErrDuplicateID)
	}

	// The largest ID the contract allows works like any.
	longest := agent.WithMessageID(eventlog.MessageID(strings.Repeat("k", signals.MaxIDBytes)))
	_, err = h.Followup(ctx, "/say long", longest, ack)
	require.NoError(t, err)
	_, err = h.Followup(ctx, "/say long", longest, agent.Unacknowledged())
	require.NoError(t, err)

	idleAcrossRuns(ctx, t, h)
	n := inserted(t, h)
	for _, id := range []eventlog.MessageID{"order-1", "order-2", "race-1", "steer-1", "inject-1", "send-1", eventlog.MessageID(strings.Repeat("k", signals.MaxIDBytes))} {
		require.Equal(t, 1, n[id], "message %s", id)
	}
	answers := ofType[eventlog.AssistantMessage](events(t, mustLog(t, h)))
	said := map[string]int{}
	for _, m := range answers {
		said[m.Text]++
	}
	require.Equal(t, 1, said["one"])
	require.Equal(t, 1, said["two"])
	require.Equal(t, 1, said["long"])
	require.Equal(t, 1, said["race"])
}

// The dedupe window crosses Continue-As-New: a message accepted by one run
// is a duplicate for the next, as signal and as update.
func TestResentMessageIDIsDeliveredOnceAcrossContinueAsNew(t *testing.T) {
	e := newEnv(t)
	e.cfg.MaxRunTurns = 1
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "dedupe-can", First: "/say hello"})
	require.NoError(t, err)
	idleAcrossRuns(ctx, t, h)

	for _, id := range []eventlog.MessageID{"early-signal", "early-update"} {
		opts := []agent.SendOption{agent.Unacknowledged()}
		if id == "early-update" {
			opts = []agent.SendOption{agent.Acknowledged()}
		}
		_, err := h.Followup(ctx, "/say "+string(id), append(opts, agent.WithMessageID(id))...)
		require.NoError(t, err)
		// A signal is recorded when a workflow task takes it: until then
		// the agent may still look idle, and a resend that overtakes it is
		// the copy delivered (agent.WithMessageID).
		recorded(t, h, id)
		idleAcrossRuns(ctx, t, h)
	}
	before := idleAcrossRuns(ctx, t, h)
	require.GreaterOrEqual(t, before.Runs, 3, "each turn ended its run")

	for _, id := range []eventlog.MessageID{"early-signal", "early-update"} {
		_, err = h.Followup(ctx, "/say "+string(id), agent.WithMessageID(id), agent.Acknowledged())
		require.ErrorIs(t, err, signals.ErrDuplicateID, "%s, asked of a later run", id)
		_, err = h.Followup(ctx, "/say again", agent.WithMessageID(id), agent.Acknowledged())
		require.ErrorIs(t, err, signals.ErrReusedID, "%s with other content, asked of a later run", id)
		_, err = h.Followup(ctx, "/say again", agent.WithMessageID(id), agent.Unacknowledged())
		require.NoError(t, err)
	}
	// A fresh message still gets through, after the dropped resends.
	_, err = h.Followup(ctx, "/say fresh", agent.Acknowledged())
	require.NoError(t, err)
	after := idleAcrossRuns(ctx, t, h)
	require.Equal(t, before.Turn+1, after.Turn, "only the fresh message opened a turn")

	n := inserted(t, h)
	require.Equal(t, 1, n["early-signal"])
	require.Equal(t, 1, n["early-update"])
}

// The starter sends under a caller's message ID, so a script may resend
// after any failure: a duplicate exits 0 and says it was not delivered again.
func TestStarterResendWithMessageIDIsDeliveredOnce(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	requireExit(t, e.starter(ctx, "start", "--id", "cli-dedupe", "--tools", "echo", "--wait", "/say hello"), 0)

	h, err := e.agents.Attach(ctx, "cli-dedupe")
	require.NoError(t, err)
	// Acknowledged, then resent: Temporal answers the same update ID.
	for _, args := range [][]string{
		{"followup", "--message-id", "job-7", "cli-dedupe", "/say once"},
		{"followup", "--message-id", "job-7", "cli-dedupe", "/say once"},
		{"steer", "--message-id", "job-7", "cli-dedupe", "/say once"},
		{"followup", "--no-ack", "--message-id", "job-7", "cli-dedupe", "/say once"},
	} {
		r := e.starter(ctx, args...)
		requireExit(t, r, 0)
		require.Equal(t, "job-7\n", r.out)
	}
	// Signalled, then resent acknowledged: the agent says it is a duplicate.
	requireExit(t, e.starter(ctx, "followup", "--no-ack", "--message-id", "job-8", "cli-dedupe", "/say twice?"), 0)
	recorded(t, h, "job-8")
	r := e.starter(ctx, "followup", "--message-id", "job-8", "cli-dedupe", "/say twice?")
	requireExit(t, r, 0)
	require.Equal(t, "job-8\n", r.out)
	require.Contains(t, r.err, "message job-8 already delivered; not delivered again")

	r = e.starter(ctx, "followup", "--message-id", "has space", "cli-dedupe", "/say bad")
	requireExit(t, r, 1)
	require.Contains(t, r.err, "message id is invalid")

	idleAcrossRuns(ctx, t, h)
	require.Equal(t, 1, inserted(t, h)["job-7"])
	require.Equal(t, 1, inserted(t, h)["job-8"])
}

// A signal and an update of one message ID that reach the agent in one
// workflow task: the signal's copy is taken, as history has it first (the
// update's handler hands signals delivered before it to the loop first,
// then finds its ID taken by other content and refuses it, ErrReusedID),
// and the projection from history
// resolves the message to the same copy. (Runs recorded before
// signals_first took the update's copy; projection still reads them so.)
func TestASignalAndAnUpdateOfOneIDInOneTaskProjectAsTheCopyTaken(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	w := e.startWorker(echoTool())
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "one-task-race", First: "/say hello"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	w.Stop()

	_, err = h.Followup(ctx, "/say signalled copy", agent.WithMessageID("twin"), agent.Unacknowledged())
	require.NoError(t, err)
	acked := make(chan error, 1)
	go func() {
		_, err := h.Followup(ctx, "/say updated copy", agent.WithMessageID("twin"), agent.Acknowledged())
		acked <- err
	}()
	// The server holds the update until a worker takes the task: start one
	// once the update is admitted, so both reach it in one task.
	waitFor(t, 30*time.Second, "the update to be admitted", func() bool {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_, err := e.c.WorkflowService().PollWorkflowExecutionUpdate(pctx, &workflowservice.PollWorkflowExecutionUpdateRequest{
			Namespace: e.ts.GetDefaultNamespace(),
			UpdateRef: &updatepb.UpdateRef{WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: h.ID},
				UpdateId: signals.MessageUpdateID("twin", "/say updated copy")},
			WaitPolicy: &updatepb.WaitPolicy{LifecycleStage: enumspb.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED},
		})
		return err == nil
	})
	e.startWorker(echoTool())
	require.ErrorIs(t, <-acked, signals.ErrReusedID, "the signal's copy is taken, first in history: the update's other content is refused")
	idleAcrossRuns(ctx, t, h)

	log := mustLog(t, h)
	var content []string
	for _, ev := range events(t, log) {
		if in, ok := ev.(eventlog.InboxInserted); ok && in.MessageID == "twin" {
			content = append(content, in.Content)
		}
	}
	require.Equal(t, []string{"/say signalled copy"}, content)
	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	projected, err := projection.FromHistory(history)
	require.NoError(t, err)
	requireSameLog(t, log, projected)
}
