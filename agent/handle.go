package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Handle is one agent. It is cheap, holds no state beyond IDs and its
// Client's connections, and is safe for concurrent use.
type Handle struct {
	c       client.Client
	dc      converter.DataConverter // c's, for payloads read outside c
	streams *http.Client            // reads live token streams; nil: defaultStreamClient
	watches *watches                // the Client's history long polls
	queue   string                  // the agent's task queue; "": read when needed
	ID      string
	RunID   string // the run the handle was made for; operations follow the chain
}

// SendOption changes how a message is delivered.
type SendOption func(*sendOptions)

type sendOptions struct {
	signal bool // fire and forget (Unacknowledged); the default is an update
	id     eventlog.MessageID
	chosen bool // id is the caller's (WithMessageID), not a fresh one
	at     time.Time
}

// A message is acknowledged by default: it is delivered as an update, and
// the call returns once the workflow has validated and accepted it, with
// the position of its inbox event. The workflow's own rejections (a
// duplicate or reused ID, a disposed agent, an agent too busy to take more
// bytes: signals.ErrBusy) come back as typed errors, so nothing a caller
// sends is dropped unseen, and a burst of senders is held to the agent's
// byte budget (signals.MaxPendingBytes, signals.MaxRunHistoryBytes) instead
// of taking its history to Temporal's limit.
//
// Transient failures (a workflow task that keeps failing, a run continuing
// as new, an overloaded or unreachable server, one attempt timing out, an
// agent busy for a moment) are retried under the same message ID with
// backoff (50 ms doubling to 2 s; a busy agent's signals.BusyRetryAfter)
// until the message is known delivered or refused, within ctx's deadline
// (one minute when ctx has none). A duplicate answer to a retry means an
// earlier attempt delivered it: the call succeeds, with Seq -1 (unknown).
// When the deadline ends first, the error is a *DeliveryUnknownError
// (errors.Is ErrDeliveryUnknown) naming the message ID to send again with;
// when no worker polls the agent's task queue, one that unwraps to a
// *NoWorkerError, within seconds: the message may still be taken when a
// worker comes, and a resend under its ID is safe. Unacknowledged sends a
// signal instead.

// Acknowledged delivers the message as an update, which is the default;
// it remains so that callers written when signals were the default say
// what they mean.
func Acknowledged() SendOption { return func(o *sendOptions) { o.signal = false } }

// Unacknowledged delivers the message as a signal: the server accepts it
// durably at once, even while no worker runs, and the call returns without
// waiting for the workflow (the Ack's Seq is -1). The client validates it
// first, but what the workflow refuses (a duplicate, a reused ID, a busy or
// closed agent) it drops without an answer, and the signal's bytes are in
// the agent's history before the workflow can refuse them. It costs one
// history event fewer than an update.
func Unacknowledged() SendOption { return func(o *sendOptions) { o.signal = true } }

// WithMessageID sends the message under id, chosen by the caller, instead
// of a fresh one, so a sender that retries (after a timeout, a crash, an
// answer lost on the way) can send the same message again safely: the
// agent remembers the last 1,024 message IDs it accepted (loop.MaxRecentIDs,
// carried across Continue-As-New) and never delivers one twice.
//
// A resend is answered as a duplicate. Sent as a signal (Unacknowledged),
// it is dropped by the workflow and the call returns no error: the server
// took the signal, the agent ignores it. Acknowledged (the default), the call
// returns the first delivery's Ack (Seq -1 when the first copy came as a
// signal or an earlier run of the agent accepted it) beside an
// *AlreadyDeliveredError (errors.Is ErrAlreadyDelivered, and
// signals.ErrDuplicateID): not a failure, the message is delivered once.
// When it overtakes a first copy sent as a signal that the agent has not
// recorded yet, it gets its own Ack, and that signal is the copy dropped.
// The same ID with other content is refused with signals.ErrReusedID
// when acknowledged; as a signal the agent drops it.
//
// id must pass signals.ValidateID (1 to 128 bytes of printable ASCII
// without spaces, not starting with "made:"), or the call fails with
// signals.ErrInvalidID before anything is sent. An empty id means a fresh
// one, as without the option.
func WithMessageID(id eventlog.MessageID) SendOption {
	return func(o *sendOptions) { o.id = id }
}

// At delivers the message at t instead of now: the agent keeps it on a
// durable timer (surviving worker restarts and Continue-As-New), and at t
// it enters the inbox as if sent then, from the initiator "timer". A t not
// after now means now. It is sent as a send (signals.Send with At), so it
// works with Followup, Steer, Inject and Send alike; a t more than
// signals.MaxScheduleAhead ahead fails with signals.ErrScheduleTooFar
// before anything is sent, and an agent holding signals.MaxScheduled
// scheduled messages refuses more (signals.ErrTooManyScheduled; an
// Unacknowledged one is dropped). The Ack's Seq is then the position
// of the message's inbox/scheduled event. Cancel leaves scheduled
// messages (they are not in the inbox yet); Dispose discards them. They are
// not due work: an agent whose only work is scheduled is idle for WaitIdle,
// and its status lists them (StatusView.Scheduled).
func At(t time.Time) SendOption { return func(o *sendOptions) { o.at = t } }

// Followup queues content for a turn of its own and wakes the agent.
func (h *Handle) Followup(ctx context.Context, content string, opts ...SendOption) (signals.Ack, error) {
	return h.message(ctx, signals.Followup, content, opts)
}

// Steer queues content for the next step boundary and wakes the agent.
func (h *Handle) Steer(ctx context.Context, content string, opts ...SendOption) (signals.Ack, error) {
	return h.message(ctx, signals.Steer, content, opts)
}

// Inject queues content for the next step boundary without waking the agent.
func (h *Handle) Inject(ctx context.Context, content string, opts ...SendOption) (signals.Ack, error) {
	return h.message(ctx, signals.Inject, content, opts)
}

// Send routes content to list, waking the agent when wake is set.
func (h *Handle) Send(ctx context.Context, content string, list eventlog.List, wake bool, opts ...SendOption) (signals.Ack, error) {
	return h.send(ctx, content, signals.Route{List: list, Wake: wake}, options(opts))
}

func (h *Handle) send(ctx context.Context, content string, rt signals.Route, o sendOptions) (signals.Ack, error) {
	s := rt.Send(signals.Message{ID: o.id, Content: content}, o.at)
	if err := signals.ValidateSend(s); err != nil {
		return signals.Ack{}, err
	}
	if err := signals.ValidateSchedule(s.At, time.Now()); err != nil {
		return signals.Ack{}, err
	}
	if !o.signal {
		return deliverMessage(ctx, h, signals.SendUpdate, s.ID, s.Content, o.chosen, s)
	}
	return signals.Ack{MessageID: s.ID, Seq: -1}, signal(ctx, h, signals.SendSignal, s)
}

// message validates and delivers content by op; Unacknowledged, the ack's
// Seq is -1 (unknown until the workflow records it). A message for later
// goes as a send on the operation's route (signals.MessageOp), which the
// workflow reads too.
func (h *Handle) message(ctx context.Context, op signals.MessageOp, content string, opts []SendOption) (signals.Ack, error) {
	o := options(opts)
	if !o.at.IsZero() {
		return h.send(ctx, content, op.Route, o)
	}
	m := signals.Message{ID: o.id, Content: content}
	if err := signals.ValidateMessage(m); err != nil {
		return signals.Ack{}, err
	}
	if !o.signal {
		return deliverMessage(ctx, h, op.Update, m.ID, m.Content, o.chosen, m)
	}
	return signals.Ack{MessageID: m.ID, Seq: -1}, signal(ctx, h, op.Signal, m)
}

func options(opts []SendOption) sendOptions {
	var o sendOptions
	for _, f := range opts {
		f(&o)
	}
	o.chosen = o.id != ""
	if !o.chosen {
		o.id = NewMessageID()
	}
	return o
}

// Cancel aborts the active turn; unless keepInbox, pending messages are
// discarded with outcome canceled.
func (h *Handle) Cancel(ctx context.Context, cause string, keepInbox bool) error {
	if err := signals.ValidateCause(cause); err != nil {
		return err
	}
	return signal(ctx, h, signals.CancelSignal, signals.Cancel{Cause: cause, KeepInbox: keepInbox})
}

// Dispose ends the agent and waits for its workflow to complete. Pending
// messages are discarded with outcome disposed; later messages get ErrClosed.
// With no worker on the agent's task queue the dispose is recorded (a
// signal) and the call fails with a *NoWorkerError instead of waiting.
func (h *Handle) Dispose(ctx context.Context, cause string) error {
	if err := signals.ValidateCause(cause); err != nil {
		return err
	}
	if err := signal(ctx, h, signals.DisposeSignal, signals.Dispose{Cause: cause}); err != nil {
		return err
	}
	wctx, stop := h.needsWorker(ctx)
	defer stop()
	var res signals.AgentResult
	err := h.c.GetWorkflow(wctx, h.ID, "").Get(wctx, &res)
	if nw := noWorker(wctx, err); nw != nil && ctx.Err() == nil {
		return fmt.Errorf("dispose agent %s: the dispose is recorded, and the agent ends once a worker takes it: %w", h.ID, nw)
	}
	if err != nil {
		return fmt.Errorf("dispose agent %s: %w", h.ID, err)
	}
	return nil
}

// Status reads idle/running, turn, step and both inbox lists.
//
// A disposed agent reads as it last was, Disposed set. An agent that
// ended otherwise (failed, terminated, timed out, canceled) reads as it
// last was with nothing in flight (idle, no turn open, nothing due or
// waited for: what its status query would still answer is stale), beside
// a *ClosedError saying how and why it ended. With no worker on the
// agent's task queue, it reads the status its search attributes hold
// beside a *NoWorkerError (FromHistory set).
func (h *Handle) Status(ctx context.Context) (signals.StatusView, error) {
	st, err := h.status(ctx, notReadyOnly)
	if nw := (*NoWorkerError)(nil); errors.As(err, &nw) && !errors.Is(err, ErrClosed) {
		return h.attrStatus(ctx, nw)
	}
	return st, err
}

// WaitIdle returns once the agent has no open turn and no due work (seed
// 003's whenIdle), or has been disposed. It asks the status query, then
// waits on the agent's history with a long poll (shared by all waiters on
// the agent through this Client) and asks again when a workflow task may
// have left the agent idle: within milliseconds of it, and without writing
// anything to the agent's history. The wait-idle update is the push
// alternative for callers that prefer it.
func (h *Handle) WaitIdle(ctx context.Context, opts ...WaitOption) (signals.StatusView, error) {
	var o waitOptions
	for _, f := range opts {
		f(&o)
	}
	w := h.watches.acquire(h.ID)
	defer w.release()
	for {
		_, settled := w.wait()
		// A query fails for a while when no worker holds the agent (a
		// worker restart): queryRun asks again until the caller's deadline.
		st, err := h.status(ctx, untilDone)
		switch {
		case err != nil:
			return st, err
		case st.Idle() || st.Disposed || o.orBlocked && st.Blocked():
			return st, nil
		}
		if err := waitFor(ctx, settled, recheck); err != nil {
			return st, err
		}
	}
}

// waitFor waits for ch, at most d; it fails only when ctx ends.
func waitFor(ctx context.Context, ch <-chan struct{}, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
	case <-t.C:
	}
	return nil
}

// WaitOption changes what WaitIdle waits for.
type WaitOption func(*waitOptions)

type waitOptions struct{ orBlocked bool }

// OrBlocked also returns when the open turn waits for a person (an
// approval or an ask_human answer): StatusView.Pending says what for.
func OrBlocked() WaitOption { return func(o *waitOptions) { o.orBlocked = true } }

// Polling bounds: the backoff of a query asked again, and how often a
// waiter asks again when its long poll told it nothing (a safety net).
const (
	minPoll = 10 * time.Millisecond
	maxPoll = 250 * time.Millisecond
	recheck = 5 * time.Second
)

// Log reads the whole session log, page by page, across the agent's chain
// of runs (Continue-As-New): sequence numbers continue from run to run.
// With no worker on the agent's task queue it reads the log from the
// agent's history instead and returns it beside a *NoWorkerError
// (FromHistory set).
func (h *Handle) Log(ctx context.Context) ([]eventlog.Envelope, error) {
	return h.readLog(ctx, 0)
}

// logOf reads run's log from `from` to its end; what precedes the run's base
// comes from the run it continued.
func (h *Handle) logOf(ctx context.Context, runID string, from int64) ([]eventlog.Envelope, error) {
	var out []eventlog.Envelope
	for {
		page, err := queryRun(ctx, h, runID, signals.LogQuery, signals.LogRequest{From: from}, notReadyOnly, false)
		if err != nil {
			return nil, err
		}
		if from < page.Base && page.PrevRun != "" {
			prev, err := h.logOf(ctx, page.PrevRun, from)
			if err != nil {
				return nil, err
			}
			out = append(out, prev...)
		}
		out = append(out, page.Events...)
		if page.Next >= page.Len || len(page.Events) == 0 {
			return out, nil
		}
		from = page.Next
	}
}

// updateOnce sends u once and waits for its outcome; errors are Temporal's.
func updateOnce[In, Out any](ctx context.Context, h *Handle, u signals.Update[In, Out], id string, in In) (Out, error) {
	var out Out
	handle, err := h.c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: h.ID, UpdateID: id, UpdateName: u.Name, Args: []any{in},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = handle.Get(ctx, &out)
	}
	return out, err
}

func signal[T any](ctx context.Context, h *Handle, s signals.Signal[T], in T) error {
	if err := h.c.SignalWorkflow(ctx, h.ID, "", s.Name, in); err != nil {
		return h.mapErr(ctx, s.Name, err)
	}
	return nil
}

func query[In, Out any](ctx context.Context, h *Handle, q signals.Query[In, Out], in In) (Out, error) {
	return queryRun(ctx, h, "", q, in, notReadyOnly, false)
}

// patience says which failed queries queryRun asks again, and for how long.
type patience int

const (
	// notReadyOnly asks again, for up to queryNotReadyWait, a run that
	// cannot answer yet (notReady).
	notReadyOnly patience = iota
	// untilDone asks again after any failure but a missing agent, until ctx
	// ends: a query fails for a while when no worker holds the agent.
	untilDone
)

// queryNotReadyWait bounds how long a query waits for a run to be able to
// answer.
const queryNotReadyWait = 15 * time.Second

// queryRun asks one run ("" = the latest), asking again with backoff while
// p says the run cannot answer yet. It is the client's one retry of a
// query. With openOnly, a run that has closed is not asked: the answer is
// its *ClosedError. A query waits for a worker no longer than needsWorker
// lets it: then it fails with a *NoWorkerError.
func queryRun[In, Out any](ctx context.Context, h *Handle, runID string, q signals.Query[In, Out], in In, p patience, openOnly bool) (Out, error) {
	wctx, stop := h.needsWorker(ctx)
	defer stop()
	out, err := queryServed(wctx, h, runID, q, in, p, openOnly)
	if nw := noWorker(wctx, err); nw != nil && ctx.Err() == nil {
		return out, nw
	}
	return out, err
}

func queryServed[In, Out any](ctx context.Context, h *Handle, runID string, q signals.Query[In, Out], in In, p patience, openOnly bool) (Out, error) {
	var out Out
	deadline := time.Now().Add(queryNotReadyWait)
	reject := enumspb.QUERY_REJECT_CONDITION_NONE
	if openOnly {
		reject = enumspb.QUERY_REJECT_CONDITION_NOT_OPEN
	}
	for pause := minPoll; ; pause = min(2*pause, maxPoll) {
		resp, err := h.c.QueryWorkflowWithOptions(ctx, &client.QueryWorkflowWithOptionsRequest{
			WorkflowID: h.ID, RunID: runID, QueryType: q.Name, Args: []any{in}, QueryRejectCondition: reject,
		})
		switch {
		case err == nil && resp.QueryRejected != nil:
			return out, h.closedErr(ctx, runID, resp.QueryRejected.GetStatus())
		case err == nil:
			err = resp.QueryResult.Get(&out)
		}
		if err == nil {
			return out, nil
		}
		again := notReady(ctx, err, q.Name) && time.Now().Add(pause).Before(deadline) ||
			p == untilDone && !isNotFound(err)
		if !again || ctx.Err() != nil {
			return out, h.mapErr(ctx, q.Name, err)
		}
		if closed := h.closedRun(ctx, runID, err); closed != nil {
			return out, closed // it will never register its handlers
		}
		select {
		case <-ctx.Done():
			return out, h.mapErr(ctx, q.Name, err)
		case <-time.After(pause):
		}
	}
}

// notReady reports an answer that says the run could not answer yet, so
// asking again shortly may succeed: the SDK's answer of a run that has not
// registered query name (its first workflow task has not completed: a busy
// or restarting worker), or the server giving up on a worker that did not
// take the query in time (its sticky schedule-to-start timeout; the server
// then sends the run's next tasks to any worker) while ctx has time left.
func notReady(ctx context.Context, err error, name string) bool {
	var qf *serviceerror.QueryFailed
	var wnr *serviceerror.WorkflowNotReady
	var de *serviceerror.DeadlineExceeded
	return errors.As(err, &wnr) || errors.As(err, &qf) && strings.Contains(qf.Message, "unknown queryType "+name+".") ||
		errors.As(err, &de) && ctx.Err() == nil
}

// closedRun reports a run that closed without answering queries (its
// workflow failed before registering them) as a *ClosedError; nil
// otherwise.
func (h *Handle) closedRun(ctx context.Context, runID string, err error) error {
	var qf *serviceerror.QueryFailed
	if !errors.As(err, &qf) {
		return nil
	}
	desc, derr := h.c.DescribeWorkflowExecution(ctx, h.ID, runID)
	if derr != nil {
		return nil
	}
	st := desc.GetWorkflowExecutionInfo().GetStatus()
	if st == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return nil
	}
	return h.closedErr(ctx, runID, st)
}

// mapErr turns Temporal errors into this package's typed errors: a missing
// workflow is ErrNotFound, a closed one a *ClosedError, a validator's
// rejection its sentinel.
func (h *Handle) mapErr(ctx context.Context, op string, err error) error {
	if !isNotFound(err) {
		return fmt.Errorf("%s agent %s: %w", op, h.ID, fromRejection(err))
	}
	desc, derr := h.c.DescribeWorkflowExecution(ctx, h.ID, "")
	if derr != nil {
		return fmt.Errorf("%s: %w: %s", op, ErrNotFound, h.ID)
	}
	info := desc.GetWorkflowExecutionInfo()
	return fmt.Errorf("%s: %w", op, h.closedErr(ctx, info.GetExecution().GetRunId(), info.GetStatus()))
}

// RunMaintenance runs a maintenance task (signals.TaskCompact) in the
// agent's next true idle phase and returns when it is done (seed 003's
// runMaintenance). A message arriving meanwhile waits for it. Transient
// server failures are retried under one request ID, as for an
// acknowledged message; a *DeliveryUnknownError says when the deadline
// ended first. A task run by an attempt whose answer was lost answers
// Before and After -1 (unknown).
func (h *Handle) RunMaintenance(ctx context.Context, task signals.MaintenanceTask) (signals.Maintained, error) {
	out, err := deliver(ctx, h, request[signals.Maintain, signals.Maintained]{
		u: signals.MaintainUpdate, id: "maintain-" + newID(), in: signals.Maintain{Task: task},
	})
	if err == nil && out.Task == "" { // run by an attempt whose answer was lost: its figures are unknown
		out = signals.Maintained{Task: task, Before: -1, After: -1}
	}
	return out, err
}
