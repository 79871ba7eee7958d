package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

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

	prices signals.Prices
	cur    *Block // where events go: the open turn, or the gap after a turn
	step   *Step  // the open step of cur
	calls  map[string]*Call
	inbox  map[eventlog.MessageID]string // contents of pending messages
}

// New returns an empty transcript that prices usage at p (zero: no cost).
func New(p signals.Prices) *Transcript {
	return &Transcript{prices: p, calls: map[string]*Call{}, inbox: map[eventlog.MessageID]string{}}
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
	case env.Seq > t.Next:
		return nil, fmt.Errorf("%w: want seq %d, got %d", ErrGap, t.Next, env.Seq)
	}
	e, err := eventlog.Decode(env)
	if err != nil {
		return nil, err
	}
	t.Next = env.Seq + 1
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
		return nil
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

// item places the events that show as one line or box.
func (t *Transcript) item(env eventlog.Envelope, e eventlog.Event) *Block {
	it := &Item{Seq: env.Seq, At: env.At}
	switch e := e.(type) {
	case eventlog.SystemMessage:
		it.Kind, it.Text = KindSystem, e.Content
	case eventlog.UserMessage:
		it.Kind, it.Text, it.MessageID = KindUser, e.Content, e.MessageID
	case eventlog.RuntimeContext:
		it.Kind, it.Text = KindRuntime, e.Content
	case eventlog.ContextCompacted:
		it.Kind, it.Text, it.HTML, it.Keep = KindCompacted, e.Text, Markdown(e.Text), e.Keep
	case eventlog.InboxDiscarded:
		it.Kind, it.Class = KindNote, "warn"
		it.Text = fmt.Sprintf("message %s discarded (%s)%s", e.MessageID, e.Outcome, suffix(e.Cause))
		if c, ok := t.inbox[e.MessageID]; ok {
			it.Text += ": " + Clip(c, 200)
			delete(t.inbox, e.MessageID)
		}
	default:
		it.Kind, it.Text, it.Class = KindNote, note(e), noteClass(e)
		if ms, ok := e.(eventlog.ModelSelected); ok {
			sel := ms.Selection
			t.Selection = &sel
		}
	}
	return t.add(it)
}

func note(e eventlog.Event) string {
	switch e := e.(type) {
	case eventlog.ContextPruned:
		return fmt.Sprintf("%d old tool result(s) pruned from the model's context", len(e.CallIDs))
	case eventlog.ModelSelected:
		return "model switched to " + signals.ModelLabel(e.Selection) + effort(e.Effort) + " from the next step"
	case eventlog.TurnCanceling:
		return "cancel requested" + suffix(e.Cause)
	case eventlog.AgentDisposing:
		return "dispose requested" + suffix(e.Cause)
	case eventlog.MaintenanceQueued:
		return "maintenance queued: " + e.Task
	case eventlog.MaintenanceDone:
		if e.Error != "" {
			return "maintenance " + e.Task + " failed: " + e.Error
		}
		return fmt.Sprintf("maintenance %s done: context ~%d → ~%d tokens", e.Task, e.Before, e.After)
	}
	return string(e.Type())
}

func noteClass(e eventlog.Event) string {
	switch e := e.(type) {
	case eventlog.TurnCanceling, eventlog.AgentDisposing:
		return "warn"
	case eventlog.MaintenanceDone:
		if e.Error != "" {
			return "error"
		}
	}
	return ""
}

// add appends it to the open step, else to the current block.
func (t *Transcript) add(it *Item) *Block {
	if t.step != nil {
		t.step.Items = append(t.step.Items, it)
		return t.cur
	}
	b := t.block(it.Seq, it)
	b.Entries = append(b.Entries, Entry{Note: it})
	return b
}

// block returns the current block, opening a gap when no turn is open.
func (t *Transcript) block(seq int64, first *Item) *Block {
	if t.cur == nil {
		t.cur = &Block{ID: "gap-" + strconv.FormatInt(seq, 10), First: seq, Start: first.At}
		t.Blocks = append(t.Blocks, t.cur)
	}
	return t.cur
}

func (t *Transcript) onStep(f func(*Step)) *Block {
	if t.step == nil {
		return nil
	}
	f(t.step)
	return t.cur
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
	b.End = &End{Reason: e.Reason, Error: e.Error, At: env.At}
	t.cur, t.step = nil, nil
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

// call finds the call the model asked for, or shows one it did not.
func (t *Transcript) call(env eventlog.Envelope, id, name string) *Call {
	if c, ok := t.calls[id]; ok {
		return c
	}
	c := &Call{ID: id, Name: name}
	t.calls[id] = c
	t.add(&Item{Kind: KindCall, Seq: env.Seq, At: env.At, Call: c})
	return c
}

func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// Clip cuts s to at most n bytes at a rune boundary, marking the cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

func effort(s string) string {
	if s == "" {
		return ""
	}
	return " (effort " + s + ")"
}
