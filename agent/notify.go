package agent

import (
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// Kind names a live notification (seed 003's agent/* vocabulary).
type Kind string

const (
	KindStatus    Kind = "status"    // agent/status: idle ⟷ running, only on change
	KindScheduled Kind = "scheduled" // agent/inbox/scheduled: a message waits until DeliverAt
	KindInserted  Kind = "inserted"  // agent/inbox/inserted
	KindClaimed   Kind = "claimed"   // agent/inbox/claimed
	KindDiscarded Kind = "discarded" // agent/inbox/discarded
	KindSettled   Kind = "settled"   // agent/settled: the terminal turn of a retry chain
	KindError     Kind = "error"     // agent/error: a failed model call or a failed turn
)

// Notification is one live fact about an agent. Every notification is
// derived from the durable session log; none is a second source of truth.
type Notification struct {
	Kind Kind      `json:"kind"`
	Seq  int64     `json:"seq"` // the log event it was derived from
	At   time.Time `json:"at"`

	Status     eventlog.Status         `json:"status,omitempty"`
	MessageID  eventlog.MessageID      `json:"message_id,omitempty"`
	List       eventlog.List           `json:"list,omitempty"`
	Turn       int                     `json:"turn,omitempty"`
	Discard    eventlog.DiscardOutcome `json:"discard,omitempty"`
	Settlement *eventlog.Settlement    `json:"settlement,omitempty"`
	Failure    *eventlog.Failure       `json:"failure,omitempty"`
	Error      string                  `json:"error,omitempty"`
	// DeliverAt is when a scheduled message enters the inbox.
	DeliverAt time.Time `json:"deliver_at,omitzero"`
}

// notifier derives notifications from log events, incrementally.
type notifier struct {
	settler  eventlog.Settler
	held     eventlog.Envelope // the failed turn end a settlement waits on
	attempts int               // failed model calls in the open turn
}

// apply returns the notifications event env decides, in log order.
func (n *notifier) apply(env eventlog.Envelope, e eventlog.Event) []Notification {
	var out []Notification
	for _, s := range n.settler.Apply(e) {
		at, seq := env.At, env.Seq
		if n.held.Type == eventlog.TypeTurnEnd { // decided now, about the held turn end
			at, seq = n.held.At, n.held.Seq
		}
		out = append(out, Notification{Kind: KindSettled, Seq: seq, At: at, Turn: s.Turn, Settlement: &s})
	}
	n.held = eventlog.Envelope{}
	base := Notification{Seq: env.Seq, At: env.At}
	switch e := e.(type) {
	case eventlog.StatusChanged:
		base.Kind, base.Status = KindStatus, e.Status
	case eventlog.MessageScheduled:
		base.Kind, base.MessageID, base.List, base.DeliverAt = KindScheduled, e.MessageID, e.List, e.At
	case eventlog.InboxInserted:
		base.Kind, base.MessageID, base.List = KindInserted, e.MessageID, e.List
	case eventlog.InboxClaimed:
		base.Kind, base.MessageID, base.List, base.Turn = KindClaimed, e.MessageID, e.List, e.Turn
	case eventlog.InboxDiscarded:
		base.Kind, base.MessageID, base.List, base.Discard = KindDiscarded, e.MessageID, e.List, e.Outcome
	case eventlog.AssistantAttempt:
		n.attempts++
		if e.Failure.Kind != eventlog.FailureCanceled {
			f := e.Failure
			base.Kind, base.Failure, base.Error = KindError, &f, f.Message
		}
	case eventlog.TurnStart:
		n.attempts = 0
	case eventlog.TurnEnd:
		out = append(out, n.turnEnd(env, e)...)
	}
	if base.Kind != "" {
		out = append(out, base)
	}
	return out
}

// turnEnd reports a failure no model call explains (a hook, the step
// limit) as an error, and holds a failed end until the next event says
// whether a retry turn follows.
func (n *notifier) turnEnd(env eventlog.Envelope, e eventlog.TurnEnd) []Notification {
	var out []Notification
	if e.Reason == eventlog.EndFailed && n.attempts == 0 {
		out = append(out, Notification{Kind: KindError, Seq: env.Seq, At: env.At, Turn: e.Turn, Error: e.Error})
	}
	if e.Reason == eventlog.EndFailed {
		n.held = env
	}
	return out
}
