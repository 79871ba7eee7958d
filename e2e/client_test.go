package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// gate is a tool that holds every call until the test lets one through or
// the call's context ends, so a test can act while a turn is mid-tool.
type gate struct {
	started chan string   // the idempotency key of each call that started
	pass    chan struct{} // each receive lets one held call finish
}

func newGate(t *testing.T) *gate {
	g := &gate{started: make(chan string, 16), pass: make(chan struct{})}
	// Registered after newEnv, so it runs before the worker stops: held
	// calls finish and the worker shuts down promptly.
	t.Cleanup(func() { close(g.pass) })
	return g
}

func (g *gate) tool() tools.Tool {
	return tools.Tool{
		Name: "gate", Description: "Wait until the test opens the gate.",
		Run: func(ctx context.Context, c tools.Call) (tools.Result, error) {
			select {
			case g.started <- c.IdempotencyKey:
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			}
			select {
			case <-g.pass:
				return tools.Result{Content: "gate passed"}, nil
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			}
		},
	}
}

// waitStarted returns the key of the next call that reached the gate.
func (g *gate) waitStarted(t *testing.T, ctx context.Context) string {
	t.Helper()
	select {
	case key := <-g.started:
		return key
	case <-ctx.Done():
		t.Fatal("no tool call reached the gate")
		return ""
	}
}

// open lets one held call finish.
func (g *gate) open(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case g.pass <- struct{}{}:
	case <-ctx.Done():
		t.Fatal("no tool call was waiting at the gate")
	}
}

// logOf reads and decodes an agent's whole session log.
func logOf(t *testing.T, ctx context.Context, h *agent.Handle) ([]eventlog.Envelope, []eventlog.Event) {
	t.Helper()
	log, err := h.Log(ctx)
	require.NoError(t, err)
	return log, events(t, log)
}

func answers(evs []eventlog.Event) []string {
	var out []string
	for _, a := range ofType[eventlog.AssistantMessage](evs) {
		if a.Text != "" {
			out = append(out, a.Text)
		}
	}
	return out
}

func TestConcurrentCreateOfOneIDExactlyOneSucceeds(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, 30*time.Second)

	const n = 8
	handles := make([]*agent.Handle, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			handles[i], errs[i] = e.agents.Create(ctx, agent.CreateOptions{
				ID: "contended", First: fmt.Sprintf("/say winner %d", i),
			})
		})
	}
	close(start)
	wg.Wait()

	winner := -1
	for i := range n {
		if errs[i] == nil {
			require.Equal(t, -1, winner, "creates %d and %d both succeeded", winner, i)
			require.NotNil(t, handles[i])
			winner = i
			continue
		}
		require.ErrorIs(t, errs[i], agent.ErrAlreadyExists, "create %d", i)
		require.Nil(t, handles[i])
	}
	require.NotEqual(t, -1, winner, "no create succeeded: %v", errs)

	h := handles[winner]
	desc, err := e.c.DescribeWorkflowExecution(ctx, h.ID, "")
	require.NoError(t, err)
	require.Equal(t, h.RunID, desc.GetWorkflowExecutionInfo().GetExecution().GetRunId())
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	_, evs := logOf(t, ctx, h)
	inserted := ofType[eventlog.InboxInserted](evs)
	require.Len(t, inserted, 1, "only the winner's first message entered the log")
	require.Equal(t, fmt.Sprintf("/say winner %d", winner), inserted[0].Content)
	require.Equal(t, []string{fmt.Sprintf("winner %d", winner)}, answers(evs))
}

func TestDisposedAgentIDIsNeverReused(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, 30*time.Second)

	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "once", First: "/say first life"})
	require.NoError(t, err)
	require.NoError(t, h.Dispose(ctx, "done"))

	again, err := e.agents.Create(ctx, agent.CreateOptions{ID: "once", First: "/say second life"})
	require.ErrorIs(t, err, agent.ErrAlreadyExists)
	require.Nil(t, again)
	desc, err := e.c.DescribeWorkflowExecution(ctx, "once", "")
	require.NoError(t, err)
	require.Equal(t, h.RunID, desc.GetWorkflowExecutionInfo().GetExecution().GetRunId(), "no second run was started")
}

func TestUnknownAgentIsNotFoundNotClosed(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, 30*time.Second)

	h, err := e.agents.Attach(ctx, "nosuch")
	require.ErrorIs(t, err, agent.ErrNotFound)
	require.Nil(t, h)

	// A create with an invalid first message fails before anything exists.
	_, err = e.agents.Create(ctx, agent.CreateOptions{ID: "half-made", First: "  \n "})
	require.ErrorIs(t, err, signals.ErrEmptyMessage)
	_, err = e.agents.Attach(ctx, "half-made")
	require.ErrorIs(t, err, agent.ErrNotFound)

	// A handle whose agent does not exist (as after retention deleted it).
	existing, err := e.agents.Create(ctx, agent.CreateOptions{ID: "existing"})
	require.NoError(t, err)
	ghost := *existing
	ghost.ID = "nosuch"
	_, err = ghost.Followup(ctx, "hello")
	require.ErrorIs(t, err, agent.ErrNotFound)
	require.NotErrorIs(t, err, agent.ErrClosed)
	_, err = ghost.Followup(ctx, "hello", agent.Acknowledged())
	require.ErrorIs(t, err, agent.ErrNotFound)
	_, err = ghost.Status(ctx)
	require.ErrorIs(t, err, agent.ErrNotFound)
	_, err = ghost.WaitIdle(ctx)
	require.ErrorIs(t, err, agent.ErrNotFound)
	require.NoError(t, ctx.Err(), "WaitIdle gave up at once instead of polling to the deadline")
}

func TestDisposeDiscardsPendingAndClosesTheAgentForWritesOnly(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, 30*time.Second)

	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "disposable", First: "/say hello"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	pending, err := h.Inject(ctx, "/say never answered", agent.Acknowledged())
	require.NoError(t, err)

	require.NoError(t, h.Dispose(ctx, "test over"))
	// Dispose returned after the workflow completed: no polling needed.
	desc, err := e.c.DescribeWorkflowExecution(ctx, h.ID, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.GetWorkflowExecutionInfo().GetStatus())

	_, err = h.Followup(ctx, "/say too late")
	require.ErrorIs(t, err, agent.ErrClosed)
	_, err = h.Followup(ctx, "/say too late", agent.Acknowledged())
	require.ErrorIs(t, err, agent.ErrClosed)
	attached, err := e.agents.Attach(ctx, h.ID)
	require.ErrorIs(t, err, agent.ErrClosed)
	require.NotNil(t, attached, "a closed agent still gives a handle for reading")
	require.Equal(t, h.RunID, attached.RunID)

	st, err := attached.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.Disposed)
	require.Equal(t, eventlog.StatusIdle, st.Status)
	require.Empty(t, st.NextStep)
	log, evs := logOf(t, ctx, attached)
	require.EqualValues(t, len(log), st.LogLen)
	require.Equal(t, eventlog.Outcome{List: eventlog.NextStep, Progress: eventlog.ProgressDiscarded, Discard: eventlog.DiscardDisposed},
		eventlog.ConsumedWork(evs)[pending.MessageID])
	require.Equal(t, []string{"hello"}, answers(evs), "the discarded message was never answered")
}

func TestInvalidMessagesAreRejectedBeforeReachingHistory(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, 30*time.Second)

	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "strict", First: "/say ok"})
	require.NoError(t, err)
	before, err := h.WaitIdle(ctx)
	require.NoError(t, err)

	huge := strings.Repeat("x", signals.MaxMessageBytes+1)
	cases := []struct {
		name string
		send func() error
		want error
	}{
		{"empty followup", func() error { _, err := h.Followup(ctx, ""); return err }, signals.ErrEmptyMessage},
		{"blank followup", func() error { _, err := h.Followup(ctx, " \n\t "); return err }, signals.ErrEmptyMessage},
		{"blank acknowledged followup", func() error {
			_, err := h.Followup(ctx, "   ", agent.Acknowledged())
			return err
		}, signals.ErrEmptyMessage},
		{"blank steer", func() error { _, err := h.Steer(ctx, "\n"); return err }, signals.ErrEmptyMessage},
		{"blank send", func() error {
			_, err := h.Send(ctx, " ", eventlog.NextTurn, true, agent.Acknowledged())
			return err
		}, signals.ErrEmptyMessage},
		{"oversized followup", func() error { _, err := h.Followup(ctx, huge); return err }, signals.ErrMessageTooLarge},
		{"oversized acknowledged inject", func() error {
			_, err := h.Inject(ctx, huge, agent.Acknowledged())
			return err
		}, signals.ErrMessageTooLarge},
	}
	for _, tc := range cases {
		require.ErrorIs(t, tc.send(), tc.want, tc.name)
	}

	after, err := h.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, before.LogLen, after.LogLen, "no inbox event was recorded")
	require.Empty(t, after.NextTurn)
	require.Empty(t, after.NextStep)
	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	for _, ev := range history {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ADMITTED,
			enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
			t.Fatalf("history event %d is %s: a rejected message reached history", ev.GetEventId(), ev.GetEventType())
		}
	}
}

func TestAcknowledgedFollowupReturnsItsLogPositionAndSignalReturnsMinusOne(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, 30*time.Second)

	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "acks", First: "/say one"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	acked, err := h.Followup(ctx, "/say two", agent.Acknowledged())
	require.NoError(t, err)
	require.GreaterOrEqual(t, acked.Seq, int64(0))
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	signalled, err := h.Followup(ctx, "/say three", agent.Unacknowledged())
	require.NoError(t, err)
	require.EqualValues(t, -1, signalled.Seq)
	require.NotEmpty(t, signalled.MessageID)
	require.NotEqual(t, acked.MessageID, signalled.MessageID)
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, st.Turn)

	log, evs := logOf(t, ctx, h)
	require.Less(t, acked.Seq, int64(len(log)))
	at, err := eventlog.Decode(log[acked.Seq])
	require.NoError(t, err)
	require.Equal(t, eventlog.InboxInserted{MessageID: acked.MessageID, List: eventlog.NextTurn, Content: "/say two", Wake: true}, at)

	work := eventlog.ConsumedWork(evs)
	require.Equal(t, eventlog.Outcome{List: eventlog.NextTurn, Progress: eventlog.ProgressDone, Turn: 2, TurnEnd: eventlog.EndCompleted},
		work[acked.MessageID])
	require.Equal(t, eventlog.Outcome{List: eventlog.NextTurn, Progress: eventlog.ProgressDone, Turn: 3, TurnEnd: eventlog.EndCompleted},
		work[signalled.MessageID])
	require.Equal(t, []string{"one", "two", "three"}, answers(evs))
}

// startGated creates an agent whose first turn blocks in the gate tool and
// returns once the call is held there.
func startGated(t *testing.T, ctx context.Context, e *env, g *gate, id string) *agent.Handle {
	t.Helper()
	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: id, Options: signals.AgentOptions{Tools: []string{"gate"}}, First: "/tool gate {}",
	})
	require.NoError(t, err)
	require.Equal(t, id+"/1/1/call_1_0", g.waitStarted(t, ctx))
	return h
}

func TestSteerJoinsTheRunningTurnWhileFollowupOpensTheNext(t *testing.T) {
	e := newEnv(t)
	g := newGate(t)
	e.startWorker(g.tool())
	ctx := ctxT(t, 30*time.Second)
	h := startGated(t, ctx, e, g, "steered")

	steer, err := h.Steer(ctx, "/say steered")
	require.NoError(t, err)
	follow, err := h.Followup(ctx, "/say followed")
	require.NoError(t, err)
	waitFor(t, 10*time.Second, "steer and followup pending mid-turn", func() bool {
		st, err := h.Status(ctx)
		require.NoError(t, err)
		return st.InTurn && st.Turn == 1 && len(st.NextStep) == 1 && len(st.NextTurn) == 1
	})
	g.open(t, ctx)
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)

	_, evs := logOf(t, ctx, h)
	work := eventlog.ConsumedWork(evs)
	require.Equal(t, eventlog.Outcome{List: eventlog.NextStep, Progress: eventlog.ProgressDone, Turn: 1, TurnEnd: eventlog.EndCompleted},
		work[steer.MessageID])
	require.Equal(t, eventlog.Outcome{List: eventlog.NextTurn, Progress: eventlog.ProgressDone, Turn: 2, TurnEnd: eventlog.EndCompleted},
		work[follow.MessageID])
	// The steer entered the step right after the tool's, in turn 1.
	steps := ofType[eventlog.StepStart](evs)
	// Steps after the first model call name the model the worker resolved.
	require.Equal(t, []eventlog.StepStart{{Turn: 1, Step: 1}, {Turn: 1, Step: 2, Provider: "scripted", Model: "scripted-demo"},
		{Turn: 2, Step: 1, Provider: "scripted", Model: "scripted-demo"}}, steps)
	require.Equal(t, []string{"steered", "followed"}, answers(evs))
}

func TestCancelEndsTheTurnAndDiscardsPendingFollowup(t *testing.T) {
	e := newEnv(t)
	g := newGate(t)
	e.startWorker(g.tool())
	ctx := ctxT(t, 30*time.Second)
	h := startGated(t, ctx, e, g, "canceled")

	pending, err := h.Followup(ctx, "/say never answered", agent.Acknowledged())
	require.NoError(t, err)
	require.NoError(t, h.Cancel(ctx, "user pressed stop", false))
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, st.Turn, "the discarded followup opened no turn")
	require.Empty(t, st.NextTurn)

	_, evs := logOf(t, ctx, h)
	require.Equal(t, []eventlog.TurnEnd{{Turn: 1, Reason: eventlog.EndCanceled, Error: "user pressed stop"}},
		ofType[eventlog.TurnEnd](evs))
	require.Equal(t, eventlog.Outcome{List: eventlog.NextTurn, Progress: eventlog.ProgressDiscarded, Discard: eventlog.DiscardCanceled},
		eventlog.ConsumedWork(evs)[pending.MessageID])
	results := ofType[eventlog.ToolResult](evs)
	require.Len(t, results, 1)
	require.True(t, results[0].IsError)
	require.Contains(t, results[0].Content, "canceled")
	require.Empty(t, answers(evs))
}

func TestCancelKeepingInboxLetsPendingFollowupOpenTheNextTurn(t *testing.T) {
	e := newEnv(t)
	g := newGate(t)
	e.startWorker(g.tool())
	ctx := ctxT(t, 30*time.Second)
	h := startGated(t, ctx, e, g, "kept")

	pending, err := h.Followup(ctx, "/say answered after cancel", agent.Acknowledged())
	require.NoError(t, err)
	require.NoError(t, h.Cancel(ctx, "change of plan", true))
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)

	_, evs := logOf(t, ctx, h)
	require.Equal(t, []eventlog.TurnEnd{
		{Turn: 1, Reason: eventlog.EndCanceled, Error: "change of plan"},
		{Turn: 2, Reason: eventlog.EndCompleted},
	}, ofType[eventlog.TurnEnd](evs))
	require.Equal(t, eventlog.Outcome{List: eventlog.NextTurn, Progress: eventlog.ProgressDone, Turn: 2, TurnEnd: eventlog.EndCompleted},
		eventlog.ConsumedWork(evs)[pending.MessageID])
	require.Equal(t, []string{"answered after cancel"}, answers(evs))
}

func TestSendToNextStepWithoutWakeWaitsLikeInject(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, 30*time.Second)

	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "quiet", First: "/say one"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	quiet, err := h.Send(ctx, "/say two", eventlog.NextStep, false, agent.Unacknowledged())
	require.NoError(t, err)
	require.EqualValues(t, -1, quiet.Seq)
	var st signals.StatusView
	waitFor(t, 10*time.Second, "the sent message pending in next-step", func() bool {
		st, err = h.Status(ctx)
		require.NoError(t, err)
		return len(st.NextStep) == 1
	})
	require.Equal(t, []eventlog.Pending{{ID: quiet.MessageID, Content: "/say two", Wake: false}}, st.NextStep)
	require.False(t, st.InTurn)
	require.Equal(t, 1, st.Turn)
	require.Equal(t, eventlog.StatusIdle, st.Status)
	require.True(t, st.Idle(), "a message that does not wake leaves the agent idle")

	// The next followup's turn claims it: it waited, it did not open a turn.
	follow, err := h.Followup(ctx, "/say three")
	require.NoError(t, err)
	st, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)
	_, evs := logOf(t, ctx, h)
	work := eventlog.ConsumedWork(evs)
	require.Equal(t, eventlog.Outcome{List: eventlog.NextStep, Progress: eventlog.ProgressDone, Turn: 2, TurnEnd: eventlog.EndCompleted},
		work[quiet.MessageID])
	require.Equal(t, 2, work[follow.MessageID].Turn)
}

// An agent asked before any worker ran its first workflow task has not
// registered its queries: the client asks again until it has, instead of
// failing with the SDK's "unknown queryType".
func TestStatusOfAnAgentNoWorkerHasRunYetWaitsForItsFirstTask(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "early", First: "/say hi"})
	require.NoError(t, err)
	time.AfterFunc(2*time.Second, func() { e.startWorker() })
	st, err := h.Status(ctx)
	require.NoError(t, err)
	require.Positive(t, st.LogLen, "the first message is in the log")
}
