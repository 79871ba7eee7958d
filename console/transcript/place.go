package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/internal/text"
	"github.com/tetherdev/tether/signals"
)

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
	case eventlog.DecisionMade:
		it.Kind, it.Text, it.Class = KindNote, note(e), noteClass(e)
		if t.questions[e.CallID] {
			it.Text, it.Class = answerNote(e), ""
		}
	default:
		it.Kind, it.Text, it.Class = KindNote, note(e), noteClass(e)
		if ms, ok := e.(eventlog.ModelSelected); ok && ms.Refused == "" {
			sel := ms.Selection
			t.InForce = &sel
			if !ms.Resolved {
				t.Selection = &sel
			}
		}
	}
	return t.add(it)
}

func note(e eventlog.Event) string {
	switch e := e.(type) {
	case eventlog.ContextPruned:
		return fmt.Sprintf("%d old tool result(s) pruned from the model's context", len(e.CallIDs))
	case eventlog.ModelSelected:
		return modelNote(e)
	case eventlog.MessageScheduled:
		return ScheduledNote(e)
	case eventlog.TurnCanceling:
		return "cancel requested" + suffix(e.Cause)
	case eventlog.AgentDisposing:
		return "dispose requested" + suffix(e.Cause)
	case eventlog.MaintenanceQueued:
		return "maintenance queued: " + e.Task
	case eventlog.SessionForked:
		return ForkNote(e)
	case eventlog.MaintenanceDone:
		if e.Error != "" {
			return "maintenance " + e.Task + " failed: " + e.Error
		}
		return fmt.Sprintf("maintenance %s done: context ~%d → ~%d tokens", e.Task, e.Before, e.After)
	}
	if s := orchestrationNote(e); s != "" {
		return s
	}
	return string(e.Type())
}

func noteClass(e eventlog.Event) string {
	switch e := e.(type) {
	case eventlog.TurnCanceling, eventlog.AgentDisposing, eventlog.DecisionRequested:
		return "warn"
	case eventlog.ModelSelected:
		if e.Refused != "" {
			return "warn"
		}
	case eventlog.DecisionMade:
		if !e.Approved {
			return "warn"
		}
	case eventlog.ChildSettled:
		if e.Error != "" {
			return "error"
		}
	case eventlog.MaintenanceDone:
		if e.Error != "" {
			return "error"
		}
	}
	return ""
}

// modelNote says what a model/selected event did: a switch, a refused
// one, or the worker's defaults made explicit.
func modelNote(e eventlog.ModelSelected) string {
	label := signals.ModelLabel(e.Selection) + effort(e.Effort)
	switch {
	case e.Refused != "":
		return "model switch to " + label + " refused: " + e.Refused
	case e.Resolved:
		return "runs on " + label + " (the worker's default)"
	}
	return "model switched to " + label + " from the next step"
}

// ScheduledNote says when a scheduled message is due, to which list, and
// what it says (clipped).
func ScheduledNote(e eventlog.MessageScheduled) string {
	wake := ""
	if !e.Wake {
		wake = ", without waking"
	}
	return fmt.Sprintf("message %s scheduled for %s (%s%s): %s", e.MessageID,
		e.At.UTC().Format("2006-01-02 15:04:05 UTC"), e.List, wake, Clip(e.Content, 200))
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
	return text.Cut(s, n) + "…"
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
