package workflows

import (
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

// phase is where the open turn stands; it says which command is due. The log
// says what happened; phase says what the shell is executing now.
type phase int

const (
	phaseNoTurn   phase = iota // no open turn
	phaseProposal              // in a turn, between steps: the continuation rule applies
	phaseBoundary              // a batch is claimed: step-boundary hooks are due
	phaseChoose                // the model hook chooses the step's selection
	phasePreStep               // pre-step decides reject or enter
	phaseContext               // step open: runtime-context hooks are due
	phaseRequest               // request hooks shape the call configuration
	phaseModel                 // the model call is due or in flight
	phaseRecover               // the model call failed and closed its step: request-error is due
	phaseTools                 // tool calls are due or in flight
	phaseStepDone              // step open, ready to close
	phaseStopping              // turn-stopping hooks are due
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
// command that is due, executes it (activities, hooks) and reports the
// outcome back.
type Core struct {
	agentID string
	opts    signals.AgentOptions
	modes   map[string]signals.ToolMode // the worker's tool modes by name
	local   map[string]bool             // tools that run as local activities

	state   eventlog.State
	log     []eventlog.Envelope
	base    int64               // seq of log[0]
	journal []eventlog.Envelope // history form of events no command has carried yet
	seen    map[eventlog.MessageID]bool
	recent  []eventlog.MessageID        // seen, oldest first, bounded
	inline  map[eventlog.MessageID]bool // messages no payload carries (made by hooks)
	made    int                         // messages made by hooks so far

	// A run continued from a seed: the conversation up to base, the run it
	// came from, and how many runs the chain has had.
	context eventlog.ConversationSnapshot
	prevRun string
	runs    int

	phase     phase
	last      stepOutcome
	retries   int  // retry turns in the current chain
	retryTurn bool // the open turn is a retry turn

	selection signals.Selection  // committed model selection
	pending   *signals.Selection // requested; committed at the next step boundary
	step      hook.Step          // the proposed or open step
	batch     []eventlog.Pending // the proposal's claimed batch
	call      signals.CallConfig // the open step's frozen call configuration
	calls     []eventlog.ToolCallRequest
	callsSeq  int64 // seq of the assistant message asking for calls
	failure   eventlog.Failure

	maintenance []signals.MaintenanceTask // due in the next true idle phase

	chars  int // size of the model context's content (see track)
	system int // size of its system prompt

	cancelCause string // non-empty: the open turn is being canceled
	disposed    bool
	dispose     string // cause
	err         error  // a corrupt transition; the workflow fails with it
}

// NewCore returns the loop of a fresh agent whose log starts at seq 0.
// modes are the tool modes of the worker's registry.
func NewCore(agentID string, opts signals.AgentOptions, modes map[string]signals.ToolMode) *Core {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = signals.DefaultMaxSteps
	}
	if opts.MaxParallelTools <= 0 {
		opts.MaxParallelTools = signals.DefaultMaxParallelTools
	}
	return &Core{
		agentID: agentID, opts: opts, modes: modes,
		state:     eventlog.NewState(0),
		seen:      map[eventlog.MessageID]bool{},
		inline:    map[eventlog.MessageID]bool{},
		selection: signals.Selection{Provider: opts.Provider, Model: opts.Model, Effort: opts.Effort},
	}
}

// Restore continues the loop from a seed: the log goes on at seed.State.Len
// with the state, context, inbox and selection the previous run left.
func (c *Core) Restore(seed signals.Seed) {
	c.state, c.base, c.context = seed.State, seed.State.Len, seed.Context
	c.selection, c.pending = seed.Selection, seed.Pending
	c.prevRun, c.runs, c.made = seed.PrevRun, seed.Runs, seed.Made
	c.chars, c.system = eventlog.RestoreConversation(seed.Context).Chars(), len(seed.Context.System)
	for _, id := range seed.Recent {
		c.remember(id)
	}
	for _, id := range seed.Inline {
		c.inline[id] = true
	}
	// seed.Journal is the previous run's tail: its Continue-As-New event
	// already wrote it to that run's history.
}

// AtBoundary reports whether the loop is between turns, where it may
// continue as new.
func (c *Core) AtBoundary() bool {
	return c.phase == phaseNoTurn && !c.disposed && c.err == nil && len(c.maintenance) == 0
}

// Seed captures everything the next run needs. Call it at a boundary; the
// journal tail moves into the seed.
func (c *Core) Seed(thisRun string) (signals.Seed, error) {
	conv := eventlog.RestoreConversation(c.context)
	for _, env := range c.log {
		e, err := eventlog.Decode(env)
		if err != nil {
			return signals.Seed{}, err
		}
		conv.Apply(e)
	}
	var inline []eventlog.MessageID
	for _, l := range [][]eventlog.Pending{c.state.Inbox.NextStep, c.state.Inbox.NextTurn} {
		for _, p := range l {
			if c.inline[p.ID] {
				inline = append(inline, p.ID)
			}
		}
	}
	return signals.Seed{
		State: c.state, Context: conv.Snapshot(), Selection: c.selection, Pending: c.pending,
		Recent: append([]eventlog.MessageID(nil), c.recent...), Inline: inline, Made: c.made,
		PrevRun: thisRun, Runs: c.runs + 1, Journal: c.TakeJournal(),
	}, c.err
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
	c.track(e)
}

// track keeps the model context's size current without refolding the log:
// each model-facing event adds its content; the rare events that rewrite
// the context (pruning, compaction) recount it.
func (c *Core) track(e eventlog.Event) {
	switch e := e.(type) {
	case eventlog.SystemMessage:
		c.chars += len(e.Content) - c.system
		c.system = len(e.Content)
	case eventlog.ContextPruned, eventlog.ContextCompacted:
		if conv, err := c.conversation(); err == nil {
			c.chars = conv.Chars()
		}
	default:
		c.chars += contentChars(e)
	}
}

// contentChars is what an event adds to the model context, as
// eventlog.Conversation.Chars counts it.
func contentChars(e eventlog.Event) int {
	switch e := e.(type) {
	case eventlog.UserMessage:
		return len(e.Content)
	case eventlog.RuntimeContext:
		if e.Content == "" {
			return 0
		}
		return len(eventlog.RuntimeContextPrefix) + len(e.Content)
	case eventlog.AssistantMessage:
		n := len(e.Text)
		for _, tc := range e.ToolCalls {
			n += len(tc.Name) + len(tc.Arguments)
		}
		return n
	case eventlog.ToolResult:
		return len(e.Content)
	}
	return 0
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

// Status answers the status query.
func (c *Core) Status() signals.StatusView {
	s := c.state
	return signals.StatusView{
		Status: s.Status, Turn: s.Turn, Step: s.Step, InTurn: s.InTurn,
		NextTurn: nonNil(s.Inbox.NextTurn), NextStep: nonNil(s.Inbox.NextStep),
		LogLen: s.Len, Disposed: c.disposed, Runs: c.runs + 1,
	}
}

func nonNil(p []eventlog.Pending) []eventlog.Pending {
	if p == nil {
		return []eventlog.Pending{}
	}
	return p
}
