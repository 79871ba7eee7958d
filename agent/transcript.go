package agent

import (
	"fmt"
	"io"
	"strings"

	"github.com/tetherdev/tether/eventlog"
)

// WriteTranscript prints agent id's session log for people: messages, tool
// calls with their arguments, tool results and turn boundaries. A long
// tool result is shown as a preview that says how much is left out and
// where the full text is (the log itself, `starter log --json ID`). A
// message says who sent it (user, parent, child, hook); children, decisions
// and waits get a line each. Inbox and status events are left out; the log
// itself has them.
func WriteTranscript(w io.Writer, id string, log []eventlog.Envelope) error {
	p := &printer{w: w, id: id, from: map[eventlog.MessageID]*eventlog.Initiator{}}
	for _, env := range log {
		e, err := eventlog.Decode(env)
		if err != nil {
			return err
		}
		p.event(e)
	}
	return p.err
}

type printer struct {
	w    io.Writer
	id   string
	from map[eventlog.MessageID]*eventlog.Initiator // who sent each message
	err  error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) event(e eventlog.Event) {
	switch e := e.(type) {
	case eventlog.TurnStart:
		p.printf("── turn %d ──\n", e.Turn)
	case eventlog.TurnEnd:
		p.printf("── turn %d %s%s ──\n", e.Turn, e.Reason, suffix(e.Error))
	case eventlog.SystemMessage:
		p.printf("system:      %s\n", indent(e.Content))
	case eventlog.UserMessage:
		p.printf("%-12s %s\n", sender(p.from[e.MessageID])+":", indent(e.Content))
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
		p.from[e.MessageID] = e.From
	case eventlog.ChildStarted:
		p.printf("child:       %s started (%s)\n", e.ChildID, e.Mode)
	case eventlog.ChildSettled:
		p.printf("child:       %s settled turn %d %s%s\n", e.ChildID, e.Turn, e.Reason, suffix(e.Error))
	case eventlog.ChildEnded:
		p.printf("child:       %s ended (%s)\n", e.ChildID, e.Status)
	case eventlog.DecisionRequested:
		p.printf("waiting:     %s of call %s (%s)\n", e.Kind, e.CallID, e.Name)
	case eventlog.DecisionMade:
		verdict := map[bool]string{true: "approved", false: "denied"}[e.Approved]
		p.printf("decided:     call %s %s by %s%s\n", e.CallID, verdict, firstNonEmpty(e.Decider, "a person"), suffix(e.Text))
	case eventlog.WaitStarted:
		p.printf("waiting:     call %s until %s\n", e.CallID, e.Until.UTC().Format("2006-01-02T15:04:05Z"))
	case eventlog.ToolsListed:
		p.printf("mcp tools:   %s\n", listingLine(e))
	}
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

// sender names who sent a message, as the transcript shows it.
func sender(from *eventlog.Initiator) string {
	switch {
	case from == nil || from.Kind == eventlog.ByUser:
		return "user"
	case from.ID != "":
		return string(from.Kind) + " " + from.ID
	}
	return string(from.Kind)
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

func indent(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n             ")
}
