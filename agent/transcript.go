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
// where the full text is (the log itself, `starter log --json ID`). Inbox
// and status events are left out; the log itself has them.
func WriteTranscript(w io.Writer, id string, log []eventlog.Envelope) error {
	p := &printer{w: w, id: id}
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
	w   io.Writer
	id  string
	err error
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
		p.printf("user:        %s\n", indent(e.Content))
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
	case eventlog.InboxInserted, eventlog.InboxClaimed, eventlog.StepStart, eventlog.StepEnd,
		eventlog.ToolCall, eventlog.StatusChanged:
	}
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
