package transcript

import (
	"fmt"
	"strconv"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Transcript is the fold of one session log. It is not safe for concurrent
// use; Apply events in seq order.
type Transcript struct {
	Blocks []*Block
	Total  Usage
	// Next is the seq of the next event to apply.
	Next int64
	// Selection is the last model switch recorded, if any.
	Selection *eventlog.Selection
	// InForce is the selection the agent runs on since the last accepted
	// model/selected event, a switch or the worker's defaults resolved;
	// nil before any, when the agent's options say it.
	InForce *eventlog.Selection
	// Children are the agent's child agents, in the order they started.
	Children []*Child
	// Fork is the session/forked event a fork's log begins with; nil for
	// an agent that was not forked. A fork's log begins at Fork.At+1
	// (First), since the positions before are the source's.
	Fork  *eventlog.SessionForked
	First int64

	prices signals.Prices
	cur    *Block // where events go: the open turn, or the gap after a turn
	step   *Step  // the open step of cur
	ended  *Block // the turn that ended last, until a status event settles it
	calls  map[string]*Call
	inbox  map[eventlog.MessageID]string // contents of pending messages
	// questions are the ask_human calls, so their decision reads as an
	// answer.
	questions map[string]bool
}

// New returns an empty transcript that prices usage at p (zero: no cost).
func New(p signals.Prices) *Transcript {
	return &Transcript{prices: p, calls: map[string]*Call{}, inbox: map[eventlog.MessageID]string{}, questions: map[string]bool{}}
}

// Build folds a whole log.
func Build(log []eventlog.Envelope, p signals.Prices) (*Transcript, error) {
	t := New(p)
	for _, env := range log {
		if _, err := t.Apply(env); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// ErrGap is returned for an envelope past Next: an event is missing.
var ErrGap = fmt.Errorf("transcript: gap in the log")

// Apply folds env and returns the block it changed, or nil when it changed
// none (inbox bookkeeping, status). An envelope already applied is ignored.
func (t *Transcript) Apply(env eventlog.Envelope) (*Block, error) {
	switch {
	case env.Seq < t.Next:
		return nil, nil
	case env.Seq > t.Next && t.Next == 0 && env.Type == eventlog.TypeSessionForked:
		t.Next, t.First = env.Seq, env.Seq // a fork's log: it goes on where its source's prefix ends
	case env.Seq > t.Next:
		return nil, fmt.Errorf("%w: want seq %d, got %d", ErrGap, t.Next, env.Seq)
	}
	e, err := eventlog.Decode(env)
	if err != nil {
		return nil, err
	}
	t.Next = env.Seq + 1
	t.children(e)
	b := t.apply(env, e)
	if b != nil {
		b.Last = env.Seq
	}
	return b, nil
}

// Block returns the block with id, or nil.
func (t *Transcript) Block(id string) *Block {
	for _, b := range t.Blocks {
		if b.ID == id {
			return b
		}
	}
	return nil
}

// Since returns the blocks changed by events at or after seq, in order.
func (t *Transcript) Since(seq int64) []*Block {
	var out []*Block
	for _, b := range t.Blocks {
		if b.Last >= seq {
			out = append(out, b)
		}
	}
	return out
}

func (t *Transcript) apply(env eventlog.Envelope, e eventlog.Event) *Block {
	switch e := e.(type) {
	case eventlog.InboxInserted:
		t.inbox[e.MessageID] = e.Content
		return nil
	case eventlog.InboxClaimed:
		delete(t.inbox, e.MessageID)
		return nil
	case eventlog.StatusChanged:
		return t.settled(env)
	case eventlog.SessionForked:
		t.Fork = &e
		return t.item(env, e)
	case eventlog.SessionRewound:
		return t.rewound(env, e)
	case eventlog.TurnStart:
		return t.turnStart(env, e)
	case eventlog.TurnEnd:
		return t.turnEnd(env, e)
	case eventlog.StepStart:
		return t.stepStart(env, e)
	case eventlog.StepEnd:
		return t.stepEnd()
	case eventlog.RequestHeader:
		return t.onStep(func(s *Step) { s.Header = &e })
	case eventlog.RequestContext:
		return t.onStep(func(s *Step) { s.Context = &e })
	case eventlog.AssistantMessage:
		return t.assistant(env, e)
	case eventlog.AssistantAttempt:
		return t.attempt(env, e)
	case eventlog.ToolCall:
		return t.toolCall(env, e)
	case eventlog.ToolResult:
		return t.toolResult(env, e)
	}
	return t.item(env, e)
}

func (t *Transcript) turnStart(env eventlog.Envelope, e eventlog.TurnStart) *Block {
	t.cur = &Block{ID: "turn-" + strconv.Itoa(e.Turn), Turn: e.Turn, RetryOf: e.RetryOf, First: env.Seq, Start: env.At}
	t.Blocks = append(t.Blocks, t.cur)
	t.step, t.calls = nil, map[string]*Call{}
	return t.cur
}

func (t *Transcript) turnEnd(env eventlog.Envelope, e eventlog.TurnEnd) *Block {
	b := t.cur
	if b == nil || !b.IsTurn() {
		b = &Block{ID: "turn-" + strconv.Itoa(e.Turn), Turn: e.Turn, First: env.Seq, Start: env.At}
		t.Blocks = append(t.Blocks, b)
	}
	b.End = &End{Reason: e.Reason, Error: e.Error, At: env.At, Seq: env.Seq, AsOf: env.Seq}
	t.cur, t.step, t.ended = nil, nil, b
	return b
}

// settled moves the end of the turn that ended just before a status event
// to it: the session as of a turn's end includes the status it left.
func (t *Transcript) settled(env eventlog.Envelope) *Block {
	b := t.ended
	t.ended = nil
	if b == nil || b.End.AsOf != env.Seq-1 {
		return nil
	}
	b.End.AsOf = env.Seq
	return b
}

func (t *Transcript) stepStart(env eventlog.Envelope, e eventlog.StepStart) *Block {
	b := t.block(env.Seq, &Item{At: env.At})
	t.step = &Step{Turn: e.Turn, Step: e.Step, Start: env.At, Calling: true,
		Selection: eventlog.Selection{Provider: e.Provider, Model: e.Model, Effort: e.Effort}}
	b.Entries = append(b.Entries, Entry{Step: t.step})
	return b
}

func (t *Transcript) stepEnd() *Block {
	if t.step == nil {
		return nil
	}
	t.step.Ended, t.step.Calling = true, false
	t.step = nil
	return t.cur
}

func (t *Transcript) assistant(env eventlog.Envelope, e eventlog.AssistantMessage) *Block {
	if t.step == nil { // a message outside a step: show it anyway
		t.stepStart(env, eventlog.StepStart{})
	}
	s := t.step
	s.Calling, s.Timing = false, e.Stream
	if e.Text != "" {
		s.Items = append(s.Items, &Item{Kind: KindAssistant, Seq: env.Seq, At: env.At, Text: e.Text, HTML: Markdown(e.Text), Finish: e.FinishReason})
	}
	for _, c := range e.ToolCalls {
		call := &Call{ID: c.ID, Name: c.Name, Arguments: indentJSON(c.Arguments)}
		t.calls[c.ID] = call
		s.Items = append(s.Items, &Item{Kind: KindCall, Seq: env.Seq, At: env.At, Call: call})
	}
	u := t.usage(e.Usage)
	s.Usage.Add(u)
	t.cur.Usage.Add(u)
	t.Total.Add(u)
	return t.cur
}

func (t *Transcript) usage(u eventlog.Usage) Usage {
	out := Usage{Input: u.InputTokens, Output: u.OutputTokens, Cached: u.CachedTokens}
	if t.prices != (signals.Prices{}) {
		out.Cost, out.Priced = t.prices.Cost(u), true
	}
	return out
}

func (t *Transcript) attempt(env eventlog.Envelope, e eventlog.AssistantAttempt) *Block {
	f := e.Failure
	it := &Item{Kind: KindAttempt, Seq: env.Seq, At: env.At, Failure: &f, Class: "error"}
	if f.Kind == eventlog.FailureCanceled {
		it.Class = "warn"
	}
	b := t.add(it)
	if t.step != nil {
		t.step.Calling, t.step.Timing = false, e.Stream
	}
	return b
}

func (t *Transcript) toolCall(env eventlog.Envelope, e eventlog.ToolCall) *Block {
	t.call(env, e.CallID, e.Name).Started = true
	return t.cur
}

func (t *Transcript) toolResult(env eventlog.Envelope, e eventlog.ToolResult) *Block {
	preview := Clip(e.Content, PreviewBytes)
	t.call(env, e.CallID, e.Name).Result = &Result{Content: e.Content, Preview: preview, Long: preview != e.Content,
		IsError: e.IsError, ConcludesTurn: e.ConcludesTurn, Outcome: e.Outcome}
	return t.cur
}
