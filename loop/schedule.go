package loop

import (
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Scheduled messages: a send with a future time waits in the state
// (inbox/scheduled) on a durable timer of its own (signals.ScheduleTimer),
// then enters its list from the initiator "timer" and wakes the agent like
// any message. Its timer belongs to no turn: a turn's cancel leaves it, and
// a cancel without keepInbox leaves the message too (it is not in the inbox
// yet). A dispose discards it; a restored run starts its timer again.

// CheckSchedule validates a send's time against now (the workflow's
// clock): not too far ahead, and room for one more scheduled message whose
// content fits in a seed beside what is pending. A time not after now
// means now and needs no room.
func (l *Loop) CheckSchedule(at, now time.Time, content string) error {
	if !at.After(now) {
		return nil
	}
	if err := signals.ValidateSchedule(at, now); err != nil {
		return err
	}
	if n := len(l.state.Scheduled); n >= signals.MaxScheduled {
		return fmt.Errorf("%w: %d wait, limit %d", signals.ErrTooManyScheduled, n, signals.MaxScheduled)
	}
	if n := pendingBytes(l.state) + len(content); n > l.cfg.MaxSeedBytes {
		return fmt.Errorf("%w: %d bytes would wait, limit %d", signals.ErrTooManyScheduled, n, l.cfg.MaxSeedBytes)
	}
	return nil
}

// schedule records an accepted message for later and starts its timer.
// Its ID joins the recent IDs now, so a resend is a duplicate at once.
func (l *Loop) schedule(now time.Time, in Accept) error {
	m := in.Message
	if err := l.CheckSchedule(in.At, now, m.Content); err != nil {
		return err
	}
	if err := l.admit(now, eventlog.MessageRef(m.ID), eventlog.MessageScheduled{
		MessageID: m.ID, List: in.List, Content: m.Content, Wake: in.Wake, At: in.At.UTC(),
	}); err != nil {
		return err
	}
	l.recent.addMessage(m.ID, m.Content)
	l.emit(StartTimer{ID: signals.ScheduleTimer(m.ID), After: in.At.Sub(now)})
	return nil
}

// deliver puts a scheduled message whose time came into its list. A timer
// whose message is gone (discarded by a dispose) is spent; a disposing
// agent takes nothing more.
func (l *Loop) deliver(now time.Time, id eventlog.MessageID, canceled bool) {
	m, ok := l.state.FindScheduled(id)
	if !ok || canceled || l.state.Disposing {
		return
	}
	l.recent.addMessage(id, m.Content) // a resend is a duplicate for as long after delivery as after any acceptance
	l.record(now, eventlog.MessageRef(id), eventlog.InboxInserted{
		MessageID: id, List: m.List, Content: m.Content, Wake: m.Wake, From: &eventlog.Initiator{Kind: eventlog.ByTimer},
	})
	if m.Wake {
		l.orch.wakeWaits()
	}
}

// discardScheduled discards every scheduled message (a dispose).
func (l *Loop) discardScheduled(now time.Time, outcome eventlog.DiscardOutcome, cause string) {
	for _, m := range l.state.Scheduled {
		l.record(now, "", eventlog.InboxDiscarded{MessageID: m.ID, List: m.List, Outcome: outcome, Cause: cause})
	}
}

// rearm starts the timer of every scheduled message a seed carried; one
// whose time passed meanwhile fires at once.
func (l *Loop) rearm(now time.Time) {
	for _, m := range l.state.Scheduled {
		l.emit(StartTimer{ID: signals.ScheduleTimer(m.ID), After: max(0, m.At.Sub(now))})
	}
}

// pendingBytes is the content a seed would carry for messages: both inbox
// lists and the scheduled messages.
func pendingBytes(s eventlog.State) int {
	n := inboxBytes(s.Inbox)
	for _, m := range s.Scheduled {
		n += len(m.Content)
	}
	return n
}
