package loop

import (
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Check validates a client's message before it is accepted; update
// validators call it, so a refused message never reaches history.
func (l *Loop) Check(m signals.Message) error {
	if l.state.Disposing {
		return signals.ErrDisposed
	}
	if err := signals.ValidateMessage(m); err != nil {
		return err
	}
	if l.duplicate(m.ID) {
		if l.reused(m) {
			return fmt.Errorf("%w: %s", signals.ErrReusedID, m.ID)
		}
		return fmt.Errorf("%w: %s", signals.ErrDuplicateID, m.ID)
	}
	if n := pendingBytes(l.state) + len(m.Content); n > signals.MaxPendingBytes {
		return fmt.Errorf("%w: %d bytes would wait, limit %d; retry in %s", signals.ErrBusy, n, signals.MaxPendingBytes, signals.BusyRetryAfter)
	}
	return nil
}

// duplicate reports whether id was accepted before and may not be again:
// it is pending in either list, scheduled, or among the recent IDs. The
// recent window forgets old IDs, never what the inbox still holds.
func (l *Loop) duplicate(id eventlog.MessageID) bool { return duplicateID(&l.state, &l.recent, id) }

// duplicateID is duplicate over a fold and a window, the orchestrator's
// too.
func duplicateID(s *eventlog.State, w *ids, id eventlog.MessageID) bool {
	return s.Holds(id) || w.seen[id]
}

// reused reports whether m's ID, a duplicate, was accepted with other
// content: the pending or scheduled message's own, else the digest the
// recent window keeps. An ID whose content is not known (a spawn, a
// decision, a window restored from a seed older than the digests) is not
// reused: its resend stays a duplicate, as before.
func (l *Loop) reused(m signals.Message) bool {
	if p, _, ok := l.state.Inbox.Find(m.ID); ok {
		return p.Content != m.Content
	}
	if s, ok := l.state.FindScheduled(m.ID); ok {
		return s.Content != m.Content
	}
	sum, ok := l.recent.sums[m.ID]
	return ok && sum != contentSum(m.Content)
}

// CheckMaintain validates a maintenance request.
func (l *Loop) CheckMaintain(t signals.MaintenanceTask) error {
	switch {
	case l.state.Disposing:
		return signals.ErrDisposed
	case t == signals.TaskCompact:
	case t == signals.TaskUpgrade:
		return l.checkUpgrade()
	default:
		return fmt.Errorf("%w: %q (the tasks are %q and %q)", ErrUnknownTask, t, signals.TaskCompact, signals.TaskUpgrade)
	}
	return nil
}

func (l *Loop) accept(now time.Time, in Accept) error {
	if err := l.Check(in.Message); err != nil {
		return err
	}
	if !in.List.Valid() {
		return fmt.Errorf("%w: %q", signals.ErrInvalidList, in.List)
	}
	if in.At.After(now) {
		return l.schedule(now, in)
	}
	if err := l.admit(now, eventlog.MessageRef(in.Message.ID), eventlog.InboxInserted{
		MessageID: in.Message.ID, List: in.List, Content: in.Message.Content, Wake: in.Wake, From: in.From,
	}); err != nil {
		return err
	}
	l.recent.addMessage(in.Message.ID, in.Message.Content)
	if in.Wake {
		l.orch.wakeWaits()
	}
	return nil
}

// make inserts a message a hook made. No payload in history carries it, so
// its content is journaled inline.
func (l *Loop) make(now time.Time, content string, list eventlog.List, wake bool) (eventlog.MessageID, error) {
	if err := signals.ValidateContent(content); err != nil {
		return "", err
	}
	if !list.Valid() {
		return "", fmt.Errorf("%w: %q", signals.ErrInvalidList, list)
	}
	l.made++
	id := signals.MadeMessageID(l.state.Turn, l.made)
	l.recent.add(id)
	from := &eventlog.Initiator{Kind: eventlog.ByHook}
	l.record(now, "", eventlog.InboxInserted{MessageID: id, List: list, Content: content, Wake: wake, From: from})
	if wake {
		l.orch.wakeWaits()
	}
	return id, nil
}

// msgRef is where a message's content is in history: the payload that
// delivered it, or inline for a message a hook made.
func msgRef(id eventlog.MessageID) eventlog.Ref {
	if signals.IsMade(id) {
		return ""
	}
	return eventlog.MessageRef(id)
}

// cancel aborts the open turn and, unless keepInbox, discards every
// pending message; scheduled messages are not in the inbox yet and stay
// scheduled. The turn ends canceled at its next boundary: in-flight
// work is interrupted and reports back canceled.
func (l *Loop) cancel(now time.Time, cause string, keepInbox bool) error {
	cause = signals.BoundCause(cause)
	if !keepInbox {
		l.discardAll(now, eventlog.DiscardCanceled, cause)
	}
	if !l.state.InTurn || l.state.Canceling != "" {
		return nil
	}
	if cause == "" {
		cause = "canceled"
	}
	l.record(now, "", eventlog.TurnCanceling{Turn: l.state.Turn, Cause: cause})
	if l.phase == tooling {
		// Calls waiting for a person or a child are answered at once; the
		// next Resume commits them (nothing else may be in flight).
		l.haltIfCanceling()
		l.kick = true
		return nil
	}
	l.emit(Interrupt{})
	return nil
}

// dispose ends the agent: the open turn is canceled, keeping the inbox;
// once it closed, pending messages are discarded and the loop finishes.
func (l *Loop) dispose(now time.Time, cause string) error {
	if l.state.Disposing {
		return nil
	}
	cause = signals.BoundCause(cause)
	if cause == "" {
		cause = "disposed"
	}
	l.record(now, "", eventlog.AgentDisposing{Cause: cause})
	return l.cancel(now, cause, true)
}

func (l *Loop) maintain(now time.Time, t signals.MaintenanceTask) error {
	if err := l.CheckMaintain(t); err != nil {
		return err
	}
	l.record(now, "", eventlog.MaintenanceQueued{Task: string(t)})
	return nil
}

func (l *Loop) discardAll(now time.Time, outcome eventlog.DiscardOutcome, cause string) {
	in := l.state.Inbox
	for _, p := range in.NextStep {
		l.record(now, "", eventlog.InboxDiscarded{MessageID: p.ID, List: eventlog.NextStep, Outcome: outcome, Cause: cause})
	}
	for _, p := range in.NextTurn {
		l.record(now, "", eventlog.InboxDiscarded{MessageID: p.ID, List: eventlog.NextTurn, Outcome: outcome, Cause: cause})
	}
}

// due reports whether pending work opens a turn. An idle agent wakes for a
// wakeful message (a followup, a steer, a send with wake); while its
// running interval lasts it drains the next-turn list and takes steering.
// Injected messages and next-turn messages sent without wake wait, unless
// they hold more than a Continue-As-New seed may carry: then a turn drains
// them, so pending content cannot pin a run and grow its history forever.
func (l *Loop) due() bool {
	in := l.state.Inbox
	if in.Len() > 0 && pendingBytes(l.state) > l.cfg.MaxSeedBytes {
		return true // too much pending to carry into a new run: a turn drains it
	}
	if l.state.Status == eventlog.StatusRunning && len(in.NextTurn) > 0 {
		return true
	}
	for _, p := range in.NextTurn {
		if p.Wake {
			return true
		}
	}
	return in.Steering()
}

// Due reports whether a Resume would make progress: the loop is idle and
// work, a dispose, maintenance or unjournaled events wait; or a request
// left the open step work no outcome will prompt.
func (l *Loop) Due() bool {
	if l.kicked() || l.stepEnded && l.phase == proposing {
		return true
	}
	if l.phase != idle {
		return false
	}
	s := l.state
	return s.Disposing || l.due() || len(s.Maintenance) > 0 || len(l.journal) > 0
}

// kicked reports whether a request left the open step something to do
// that no outcome will prompt (a cancel while calls wait for people).
func (l *Loop) kicked() bool { return l.kick && l.phase == tooling }

// Idle reports whether the agent has no open turn and no work that would
// open one (seed 003's idle for whenIdle).
func (l *Loop) Idle() bool { return !l.state.InTurn && !l.due() }

// AtBoundary reports whether the loop may continue as new here: between
// turns with nothing in progress, or between two steps of a turn,
// where no call is open, so a seed carries the open turn whole.
func (l *Loop) AtBoundary() bool {
	if l.state.Disposing || len(l.state.Maintenance) > 0 || l.err != nil {
		return false
	}
	return l.phase == idle || l.BetweenSteps()
}

// BetweenSteps reports whether the loop stands between two steps of a turn:
// a turn too long for one run continues as new here.
func (l *Loop) BetweenSteps() bool {
	return l.phase == proposing && l.stepEnded && l.state.InTurn &&
		l.state.Canceling == "" && len(l.state.OpenCalls) == 0
}
