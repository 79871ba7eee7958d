package agent

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// WriteTranscript prints agent id's session log for people: messages, tool
// calls with their arguments, tool results and turn boundaries. A long
// tool result is shown as a preview that says how much is left out and
// where the full text is (the log itself, `starter log --json ID`). A
// message says who sent it (user, parent, child, hook, timer: a scheduled
// message, which also gets a line with its time and text when it is
// scheduled) and whether it steered or was injected into a turn; children,
// decisions (an answer to a question reads as answered), waits,
// compactions, pruning, model switches (refused ones too) and the session's
// start (its session-start hooks, with what each failing one said) and a
// fork's origin (session/forked) get a line each, and so does a rewind
// (session/rewound), whose turns rewound past keep their lines, each
// turn's header marked "rewound past". Inbox and status events are left
// out; the log itself has them.
func WriteTranscript(w io.Writer, id string, log []eventlog.Envelope) error {
	p := &printer{w: w, id: id, from: map[eventlog.MessageID]inserted{}, questions: map[string]bool{}, past: rewoundPast(log)}
	for _, env := range log {
		e, err := eventlog.Decode(env)
		if err != nil {
			return err
		}
		p.event(e)
	}
	return p.err
}

// rewoundPast are the turns a rewind in log went back past.
func rewoundPast(log []eventlog.Envelope) map[int]bool {
	past := map[int]bool{}
	for _, env := range log {
		if env.Type != eventlog.TypeSessionRewound {
			continue
		}
		e, err := eventlog.Decode(env)
		r, ok := e.(eventlog.SessionRewound)
		if err != nil || !ok {
			continue
		}
		// No log holds more turns than events.
		for n := max(r.ToTurn, 0) + 1; n <= r.Past && n <= max(r.ToTurn, 0)+len(log); n++ {
			past[n] = true
		}
	}
	return past
}

type printer struct {
	past      map[int]bool // turns rewound past
	w         io.Writer
	id        string
	from      map[eventlog.MessageID]inserted // how each message came
	questions map[string]bool                 // calls that asked a person a question
	err       error
}

// inserted is how a message entered the inbox: who sent it, to which list,
// waking the agent or not.
type inserted struct {
	from *eventlog.Initiator
	list eventlog.List
	wake bool
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) event(e eventlog.Event) {
	switch e := e.(type) {
	case eventlog.TurnStart:
		p.printf("── turn %d%s ──\n", e.Turn, p.pastNote(e.Turn))
	case eventlog.TurnEnd:
		p.printf("── turn %d %s%s%s ──\n", e.Turn, e.Reason, suffix(e.Error), p.pastNote(e.Turn))
	case eventlog.SystemMessage:
		p.printf("system:      %s\n", indent(e.Content))
	case eventlog.UserMessage:
		p.printf("%-12s %s\n", p.from[e.MessageID].label()+":", indent(e.Content))
	case eventlog.RuntimeContext:
		p.printf("context:     %s\n", indent(e.Content))
	case eventlog.AssistantMessage:
		p.assistant(e)
	case eventlog.AssistantAttempt:
		p.printf("model error: %s: %s\n", e.Failure.Kind, e.Failure.Message)
	case eventlog.ToolResult:
		label := "tool result:"
		if e.IsError {
			label = "tool error: "
		}
		p.printf("%s %s → %s\n", label, e.Name, indent(Preview(e.Content, p.id)))
	case eventlog.InboxDiscarded:
		p.printf("discarded:   message %s (%s)\n", e.MessageID, e.Outcome)
	case eventlog.InboxInserted:
		p.from[e.MessageID] = inserted{from: e.From, list: e.List, wake: e.Wake}
	case eventlog.MessageScheduled:
		p.printf("scheduled:   message %s for %s (%s): %s\n", e.MessageID, e.At.UTC().Format(time.RFC3339), e.List,
			indent(Preview(e.Content, p.id)))
	case eventlog.ChildStarted:
		p.printf("child:       %s started (%s)\n", e.ChildID, e.Mode)
	case eventlog.ChildSettled:
		p.printf("child:       %s settled turn %d %s%s\n", e.ChildID, e.Turn, e.Reason, suffix(e.Error))
	case eventlog.ChildEnded:
		p.printf("child:       %s ended (%s)\n", e.ChildID, e.Status)
	case eventlog.DecisionRequested:
		p.questions[e.CallID] = e.Kind == eventlog.NeedAnswer
		p.printf("waiting:     %s of call %s (%s)\n", e.Kind, e.CallID, e.Name)
	case eventlog.DecisionMade:
		p.decided(e)
	case eventlog.WaitStarted:
		p.printf("waiting:     call %s until %s\n", e.CallID, e.Until.UTC().Format("2006-01-02T15:04:05Z"))
	case eventlog.ToolsListed:
		p.printf("mcp tools:   %s\n", listingLine(e))
	default:
		p.control(e)
	}
}

// control prints what changed the model's context or its model.
func (p *printer) control(e eventlog.Event) {
	switch e := e.(type) {
	case eventlog.ContextPruned:
		p.printf("pruned:      %d old tool result(s) from the model's context\n", len(e.CallIDs))
	case eventlog.ContextCompacted:
		p.printf("compacted:   context summarised, the last %d message(s) kept: %s\n", e.Keep, indent(Preview(e.Text, p.id)))
	case eventlog.MaintenanceDone:
		if e.Error != "" {
			p.printf("%-12s failed: %s\n", e.Task+":", e.Error)
			return
		}
		p.printf("%-12s context ~%d → ~%d tokens\n", e.Task+":", e.Before, e.After)
	case eventlog.SessionStarted:
		p.printf("session:     started (session-start hooks %s)\n", strings.Join(e.Hooks, ", "))
		for _, msg := range e.Errors {
			p.printf("session:     %s\n", indent(msg))
		}
	case eventlog.SessionForked:
		p.printf("forked:      from %s at position %d%s\n", e.Source, e.At, suffix(forkNote(e)))
	case eventlog.SessionRewound:
		by := ""
		if e.By != "" {
			by = " by " + e.By
		}
		past := fmt.Sprintf("turns %d to %d", e.ToTurn+1, e.Past)
		if e.Past == e.ToTurn+1 {
			past = fmt.Sprintf("turn %d", e.Past)
		}
		p.printf("rewound:     to the end of turn %d%s; %s rewound past, the conversation goes on from turn %d\n",
			e.ToTurn, by, past, e.ToTurn)
	case eventlog.ModelSelected:
		label := modelLabel(e.Selection)
		switch {
		case e.Refused != "":
			p.printf("model:       switch to %s refused: %s\n", label, e.Refused)
		case e.Resolved:
			p.printf("model:       runs on %s (the worker's default)\n", label)
		default:
			p.printf("model:       switched to %s from the next step\n", label)
		}
	}
}

// decided prints a person's decision: an answer to a question, or an
// approval or denial of a call.
func (p *printer) decided(e eventlog.DecisionMade) {
	who := firstNonEmpty(e.Decider, "a person")
	if p.questions[e.CallID] {
		p.printf("answered:    call %s by %s%s\n", e.CallID, who, suffix(e.Text))
		return
	}
	verdict := map[bool]string{true: "approved", false: "denied"}[e.Approved]
	p.printf("decided:     call %s %s by %s%s\n", e.CallID, verdict, who, suffix(e.Text))
}

// modelLabel is a selection as provider/model, effort included.
func modelLabel(s eventlog.Selection) string {
	label := signals.ModelLabel(s)
	if s.Effort != "" {
		label += " (effort " + s.Effort + ")"
	}
	return label
}

// listingLine says what each MCP server offered: "files 3 tools, search
// unchanged, tickets failed (why)".
func listingLine(e eventlog.ToolsListed) string {
	parts := make([]string, len(e.Servers))
	for i, s := range e.Servers {
		switch {
		case s.Unchanged:
			parts[i] = s.Server + " unchanged"
		case len(s.Tools) == 0 && s.Error != "":
			parts[i] = s.Server + " failed (" + s.Error + ")"
		default:
			parts[i] = fmt.Sprintf("%s %d tools%s", s.Server, len(s.Tools), suffix(s.Error))
		}
	}
	return strings.Join(parts, ", ")
}

// label says who sent a message and, when it was not a followup (the
// next turn's message), how it came: "user", "user steer", "user inject",
// "parent a1", "timer".
func (in inserted) label() string {
	who := "user"
	if f := in.from; f != nil && f.Kind != eventlog.ByUser {
		who = string(f.Kind)
		if f.ID != "" {
			who += " " + f.ID
		}
	}
	switch {
	case in.list == eventlog.NextStep && in.wake:
		return who + " steer"
	case in.list == eventlog.NextStep:
		return who + " inject"
	}
	return who
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (p *printer) assistant(e eventlog.AssistantMessage) {
	if e.Text != "" {
		p.printf("assistant:   %s\n", indent(e.Text))
	}
	for _, c := range e.ToolCalls {
		p.printf("tool call:   %s %s\n", c.Name, string(c.Arguments))
	}
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// pastNote marks a turn a rewind went back past.
func (p *printer) pastNote(turn int) string {
	if p.past[turn] {
		return " (rewound past)"
	}
	return ""
}

func indent(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n             ")
}

// forkNote says what a fork changed of what it began with.
func forkNote(e eventlog.SessionForked) string {
	var notes []string
	if e.ReplacedLast != "" {
		notes = append(notes, "last user message replaced")
	}
	if len(e.Dropped) > 0 {
		notes = append(notes, fmt.Sprintf("%d pending or scheduled message(s) left behind", len(e.Dropped)))
	}
	return strings.Join(notes, "; ")
}
