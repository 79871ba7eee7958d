package agent

import (
	"context"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

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
