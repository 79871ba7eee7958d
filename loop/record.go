package loop

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// record appends e to the log and to the journal, and folds it: it is the
// one way the loop's durable state changes. ref names the history fact
// that already holds e's content, if any.
func (l *Loop) record(now time.Time, ref eventlog.Ref, e eventlog.Event) {
	if l.err != nil {
		return
	}
	env, err := eventlog.Encode(l.state.Len, now, ref, e)
	if err == nil {
		err = l.state.Apply(e)
	}
	var j eventlog.Envelope
	if err == nil {
		j, err = eventlog.Strip(env)
	}
	if err != nil {
		l.fail(err)
		return
	}
	l.log = append(l.log, env)
	l.journal = append(l.journal, j)
	l.track(e)
	l.markTurns(e)
}

// admit records e, the event of a client's request, if the fold takes it.
// A fold that refuses it answers the request instead, and nothing is
// recorded: nothing a client sends fails the run. (State folds copy on
// write, so folding into a copy first leaves the loop's state untouched.)
func (l *Loop) admit(now time.Time, ref eventlog.Ref, e eventlog.Event) error {
	if probe := l.state; l.err == nil {
		if err := probe.Apply(e); err != nil {
			return fmt.Errorf("%w: %w", signals.ErrRefused, err)
		}
	}
	l.record(now, ref, e)
	return nil
}

// track keeps the model context's size current without refolding the log:
// each model-facing event adds its content; the rare events that rewrite
// the context (pruning, compaction) recount it.
func (l *Loop) track(e eventlog.Event) {
	switch e := e.(type) {
	case eventlog.SystemMessage:
		l.chars += len(e.Content) - l.system
		l.system = len(e.Content)
	case eventlog.ContextPruned, eventlog.ContextCompacted, eventlog.SessionRewound:
		if conv, err := l.conversation(); err == nil {
			l.chars, l.msgs = conv.Chars(), len(conv.Messages())
			if l.state.SystemPrompt != "" {
				l.msgs--
			}
		}
	default:
		n := contentChars(e)
		l.chars += n
		if n > 0 || isMessage(e) {
			l.msgs++
		}
	}
}

// isMessage reports whether e enters the model context as a message even
// when it has no content (a tool result may be empty).
func isMessage(e eventlog.Event) bool {
	switch e.(type) {
	case eventlog.UserMessage, eventlog.ToolResult:
		return true
	}
	return false
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

// ContextTokens estimates the model context's size in tokens (4 bytes
// each). It is kept current as events are recorded, so the pressure check
// before every step costs nothing.
func (l *Loop) ContextTokens() int { return l.chars / 4 }

// conversation folds the model-facing context: the carried context of a
// continued run, then this run's events. It is computed when compaction or
// Continue-As-New needs it, not kept beside the log.
func (l *Loop) conversation() (*eventlog.Conversation, error) {
	conv := eventlog.RestoreConversation(l.context)
	for _, env := range l.log {
		e, err := eventlog.Decode(env)
		if err != nil {
			return nil, err
		}
		conv.Apply(e)
	}
	return conv, nil
}

// carry decides that the events recorded so far and held by no Ready's
// Journal become durable at this step's Ready: the loop calls it where
// history can carry them (a command whose payload history keeps, going
// idle, the end of the run). Events recorded after it wait for the next
// such point. How history carries them is the shell's (Carry).
func (l *Loop) carry() { l.durable = len(l.journal) }

// takeJournal returns the events carry made due, as the step's Ready
// journals them, and forgets them.
func (l *Loop) takeJournal() signals.Journal {
	if l.durable == 0 {
		return signals.Journal{}
	}
	j, err := signals.NewJournal(l.journal[:l.durable])
	if err != nil {
		l.fail(err)
	}
	l.journal, l.durable = l.journal[l.durable:], 0
	return j
}

// ids is a bounded window of accepted message IDs, for duplicate
// detection; it is derived from the log's inbox/inserted events and carried
// in a seed.
type ids struct {
	seen  map[eventlog.MessageID]bool
	order []eventlog.MessageID // oldest first
	// sums holds the content digest of the client messages among them, so
	// a resend with other content is told from a duplicate.
	sums map[eventlog.MessageID]uint64
}

// MaxRecentIDs bounds the accepted message IDs remembered for duplicate
// detection (and carried across Continue-As-New).
const MaxRecentIDs = 1024

func newIDs() ids {
	return ids{seen: map[eventlog.MessageID]bool{}, sums: map[eventlog.MessageID]uint64{}}
}

func (w *ids) add(id eventlog.MessageID) {
	w.seen[id] = true
	w.order = append(w.order, id)
	if len(w.order) > MaxRecentIDs {
		delete(w.seen, w.order[0])
		delete(w.sums, w.order[0])
		w.order = w.order[1:]
	}
}

// addMessage adds a client message's ID with its content's digest.
func (w *ids) addMessage(id eventlog.MessageID, content string) {
	w.add(id)
	if w.seen[id] {
		w.sums[id] = contentSum(content)
	}
}

// orderedSums returns the digests in window order, 0 for an ID without
// one (the seed's form).
func (w *ids) orderedSums() []uint64 {
	if len(w.sums) == 0 {
		return nil
	}
	out := make([]uint64, len(w.order))
	for i, id := range w.order {
		out[i] = w.sums[id]
	}
	return out
}

// contentSum digests a message's content: the first 8 bytes of its
// SHA-256, never 0 (0 marks an ID without a digest in a seed).
func contentSum(content string) uint64 {
	h := sha256.Sum256([]byte(content))
	return binary.BigEndian.Uint64(h[:8]) | 1
}
