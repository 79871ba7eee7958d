package workflows

import (
	"errors"
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// phase is where the open turn stands; it says which command is due. The log
// says what happened; phase says what the shell is executing now.
type phase int

const (
	phaseNoTurn   phase = iota // no open turn
	phaseStepDue               // in a turn, between steps
	phaseModel                 // step open, the model call is due or in flight
	phaseTools                 // step open, tool calls are due or in flight
	phaseStepDone              // step open, ready to close
)

// stepOutcome is what the last closed step leaves for the continuation rule.
type stepOutcome struct {
	toolCalls bool   // the model asked for tools and they ran
	concluded bool   // a tool result carried concludesTurn
	failed    string // a terminal failure, recorded as the turn's error
}

// Core is the agent loop as a pure state machine: it owns the session log and
// changes only by appending events to it. It performs no I/O and reads no
// clock; times arrive as arguments. The workflow shell asks Next for the
// command that is due, executes it and reports the outcome back.
type Core struct {
	agentID string
	opts    signals.AgentOptions

	state   eventlog.State
	log     []eventlog.Envelope
	base    int64               // seq of log[0]
	journal []eventlog.Envelope // history form of events no command has carried yet
	seen    map[eventlog.MessageID]bool

	phase     phase
	last      stepOutcome
	calls     []eventlog.ToolCallRequest // the open step's tool calls, model order
	callsSeq  int64                      // seq of the assistant message asking for them
	concluded bool                       // a result in this step concluded the turn

	cancelCause string // non-empty: the open turn is being canceled
	disposed    bool
	dispose     string // cause
	err         error  // a corrupt transition; the workflow fails with it
}

// NewCore returns the loop of a fresh agent whose log starts at seq 0.
func NewCore(agentID string, opts signals.AgentOptions) *Core {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = signals.DefaultMaxSteps
	}
	return &Core{
		agentID: agentID, opts: opts,
		state: eventlog.NewState(0),
		seen:  map[eventlog.MessageID]bool{},
	}
}

// Err is the first invalid transition the core met, if any.
func (c *Core) Err() error { return c.err }

// State is the folded loop state.
func (c *Core) State() eventlog.State { return c.state }

// Disposed reports whether the agent was told to end.
func (c *Core) Disposed() bool { return c.disposed }

// record appends e to the log and the pending journal.
func (c *Core) record(at time.Time, ref eventlog.Ref, e eventlog.Event) {
	if c.err != nil {
		return
	}
	env, err := eventlog.Encode(c.state.Len, at, ref, e)
	if err == nil {
		err = c.state.Apply(e)
	}
	var j eventlog.Envelope
	if err == nil {
		j, err = eventlog.Strip(env)
	}
	if err != nil {
		c.err = err
		return
	}
	c.log = append(c.log, env)
	c.journal = append(c.journal, j)
}

// TakeJournal returns the events no command has carried into history yet and
// forgets them: the caller writes them to history.
func (c *Core) TakeJournal() signals.Journal {
	j, err := signals.NewJournal(c.journal)
	if err != nil && c.err == nil {
		c.err = err
	}
	c.journal = nil
	return j
}

// HasJournal reports whether events wait to be carried into history.
func (c *Core) HasJournal() bool { return len(c.journal) > 0 }

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
	c.seen[m.ID] = true
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
func (c *Core) HasWork() bool {
	in := c.state.Inbox
	if len(in.NextTurn) > 0 {
		return true
	}
	for _, p := range in.NextStep {
		if p.Wake {
			return true
		}
	}
	return false
}

// Status answers the status query.
func (c *Core) Status() signals.StatusView {
	s := c.state
	return signals.StatusView{
		Status: s.Status, Turn: s.Turn, Step: s.Step, InTurn: s.InTurn,
		NextTurn: nonNil(s.Inbox.NextTurn), NextStep: nonNil(s.Inbox.NextStep),
		LogLen: s.Len, Disposed: c.disposed,
	}
}

func nonNil(p []eventlog.Pending) []eventlog.Pending {
	if p == nil {
		return []eventlog.Pending{}
	}
	return p
}
