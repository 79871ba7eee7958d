package a2atool

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/signals"
)

// result is what the model reads of a task the call waited for.
func (r *Remote) result(t *a2a.Task) tools.Result {
	tool, name := signals.A2AToolName(r.Agent.Name), r.Agent.Name
	note := text(statusParts(t))
	switch t.Status.State {
	case a2a.TaskStateCompleted:
		answer := artifactsText(t)
		if answer == "" {
			answer = note
		}
		return tools.Result{Content: fmt.Sprintf("%s\n\n(A2A agent %s completed task %s; to continue this conversation, call %s with context_id %q)",
			firstOf(answer, "(the remote agent completed the task without an answer)"), name, t.ID, tool, t.ContextID)}
	case a2a.TaskStateInputRequired:
		return tools.Result{Content: fmt.Sprintf("A2A agent %s needs input to go on with task %s: %s\n\nTo answer, call %s again with task_id %q and the answer as message.",
			name, t.ID, firstOf(note, "(it did not say what)"), tool, t.ID)}
	case a2a.TaskStateAuthRequired:
		return tools.Result{IsError: true, Content: fmt.Sprintf("A2A agent %s asks for authentication this worker cannot give (task %s): %s",
			name, t.ID, firstOf(note, "(it did not say which)"))}
	case a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected:
		return tools.Result{IsError: true, Content: fmt.Sprintf("A2A agent %s's task %s %s: %s",
			name, t.ID, ended(t.Status.State), firstOf(note, "(it did not say why)"))}
	}
	return tools.Result{Content: fmt.Sprintf("A2A agent %s is still working on task %s (%s) after this call's wait of %s. "+
		"To wait for its answer, call %s again with task_id %q and no message.", name, t.ID, t.Status.State, r.Agent.Timeout, tool, t.ID)}
}

// answerMessage is a remote's direct answer, with no task.
func (r *Remote) answerMessage(m *a2a.Message) tools.Result {
	answer := firstOf(text(m.Parts), "(the remote agent answered with no text)")
	if m.ContextID == "" {
		return tools.Result{Content: answer}
	}
	return tools.Result{Content: fmt.Sprintf("%s\n\n(A2A agent %s answered; to continue this conversation, call %s with context_id %q)",
		answer, r.Agent.Name, signals.A2AToolName(r.Agent.Name), m.ContextID)}
}

func ended(s a2a.TaskState) string {
	switch s {
	case a2a.TaskStateCanceled:
		return "was canceled"
	case a2a.TaskStateRejected:
		return "was rejected"
	}
	return "failed"
}

func statusParts(t *a2a.Task) a2a.ContentParts {
	if t.Status.Message == nil {
		return nil
	}
	return t.Status.Message.Parts
}

func artifactsText(t *a2a.Task) string {
	var out []string
	for _, a := range t.Artifacts {
		if a != nil {
			if s := text(a.Parts); s != "" {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, "\n\n")
}

// text is what the model reads of parts: text as it is, data as JSON, a
// file as a summary.
func text(parts a2a.ContentParts) string {
	var out []string
	for _, p := range parts {
		switch p := p.(type) {
		case a2a.TextPart:
			out = append(out, p.Text)
		case a2a.DataPart:
			js, _ := json.Marshal(p.Data)
			out = append(out, string(js))
		case a2a.FilePart:
			out = append(out, fileSummary(p))
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func fileSummary(p a2a.FilePart) string {
	switch f := p.File.(type) {
	case a2a.FileURI:
		return fmt.Sprintf("[file %s %s at %s]", f.Name, f.MimeType, f.URI)
	case a2a.FileBytes:
		return fmt.Sprintf("[file %s %s, %d bytes base64]", f.Name, f.MimeType, len(f.Bytes))
	}
	return "[file]"
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
