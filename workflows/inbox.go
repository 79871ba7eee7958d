package workflows

import (
	"errors"
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Errors returned to message senders.
var errNotAccepting = errors.New("agent is not accepting messages")

// CheckMessage validates a message for list before it is accepted; update
// validators call it, so a rejected message never reaches history.
func (c *Core) CheckMessage(m signals.Message) error {
	if c.disposed {
		return signals.ErrDisposed
	}
	if err := signals.ValidateMessage(m); err != nil {
		return err
	}
	if c.seen[m.ID] {
		return fmt.Errorf("%w: %s", signals.ErrDuplicateID, m.ID)
	}
	return nil
}

// Accept inserts a validated message into list and returns its ack.
func (c *Core) Accept(at time.Time, m signals.Message, list eventlog.List, wake bool) (signals.Ack, error) {
	if err := c.CheckMessage(m); err != nil {
		return signals.Ack{}, err
	}
	if !list.Valid() {
		return signals.Ack{}, fmt.Errorf("%w: %q", signals.ErrInvalidList, list)
	}
	seq := c.state.Len
	c.remember(m.ID)
	c.record(at, eventlog.MessageRef(m.ID), eventlog.InboxInserted{
		MessageID: m.ID, List: list, Content: m.Content, Wake: wake,
	})
	if c.err != nil {
		return signals.Ack{}, errNotAccepting
	}
	return signals.Ack{MessageID: m.ID, Seq: seq}, nil
}

// Cancel aborts the open turn (the shell cancels its in-flight activities)
// and, unless keepInbox, discards every pending message. It reports whether a
// turn was open.
func (c *Core) Cancel(at time.Time, cause string, keepInbox bool) bool {
	if !keepInbox {
		c.discardAll(at, eventlog.DiscardCanceled, cause)
	}
	if !c.state.InTurn {
		return false
	}
	if cause == "" {
		cause = "canceled"
	}
	if c.cancelCause == "" {
		c.cancelCause = cause
	}
	return true
}

// Dispose ends the agent: the open turn is canceled and, once it has closed,
// pending messages are discarded and the workflow completes.
func (c *Core) Dispose(at time.Time, cause string) bool {
	if cause == "" {
		cause = "disposed"
	}
	c.disposed, c.dispose = true, cause
	return c.Cancel(at, cause, true)
}

func (c *Core) discardAll(at time.Time, outcome eventlog.DiscardOutcome, cause string) {
	in := c.state.Inbox
	for _, l := range []eventlog.List{eventlog.NextStep, eventlog.NextTurn} {
		pending := in.NextStep
		if l == eventlog.NextTurn {
			pending = in.NextTurn
		}
		for _, p := range pending {
			c.record(at, "", eventlog.InboxDiscarded{MessageID: p.ID, List: l, Outcome: outcome, Cause: cause})
		}
	}
}

// HasWork reports whether a turn is due: a followup is pending, or steering
// that wakes. Injected messages alone wait.
func (c *Core) HasWork() bool { return c.state.Inbox.Due() }

// Make inserts a message a hook made (steering from turn-stopping, say). No
// payload in history carries it, so its content is journaled inline.
func (c *Core) Make(at time.Time, content string, list eventlog.List, wake bool) (signals.Ack, error) {
	c.made++
	id := eventlog.MessageID(fmt.Sprintf("made:%d.%d", c.state.Turn, c.made))
	m := signals.Message{ID: id, Content: content}
	if err := signals.ValidateMessage(m); err != nil && !errors.Is(err, signals.ErrInvalidID) {
		return signals.Ack{}, err
	}
	seq := c.state.Len
	c.remember(id)
	c.inline[id] = true
	c.record(at, "", eventlog.InboxInserted{MessageID: id, List: list, Content: content, Wake: wake})
	return signals.Ack{MessageID: id, Seq: seq}, c.err
}

// SelectModel requests a model switch. It is committed at the next step
// boundary, so a step already proposed keeps its selection.
func (c *Core) SelectModel(s signals.Selection) { c.pending = &s }

// msgRef is where a message's content is in history: its payload, or inline.
func (c *Core) msgRef(id eventlog.MessageID) eventlog.Ref {
	if c.inline[id] {
		return ""
	}
	return eventlog.MessageRef(id)
}

// MaxRecentIDs bounds the accepted message IDs remembered for duplicate
// detection (and carried across Continue-As-New).
const MaxRecentIDs = 1024

func (c *Core) remember(id eventlog.MessageID) {
	c.seen[id] = true
	c.recent = append(c.recent, id)
	if len(c.recent) > MaxRecentIDs {
		delete(c.seen, c.recent[0])
		c.recent = c.recent[1:]
	}
}

// Maintain queues a maintenance task for the next true idle phase.
func (c *Core) Maintain(t signals.MaintenanceTask) { c.maintenance = append(c.maintenance, t) }

// Maintained removes the task that just ran.
func (c *Core) Maintained() {
	if len(c.maintenance) > 0 {
		c.maintenance = c.maintenance[1:]
	}
}

// HasMaintenance reports whether maintenance waits for an idle phase.
func (c *Core) HasMaintenance() bool { return len(c.maintenance) > 0 }
