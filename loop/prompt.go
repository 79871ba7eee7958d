package loop

import (
	"strconv"
	"strings"

	"github.com/tetherdev/tether/eventlog"
)

// assemble builds the step's system prompt from the agent's system prompt,
// its named sections and variables, once per step. When it is the plain
// system prompt of the start input, the ref says so, so the text is not
// written to history again.
func (l *Loop) assemble() (string, eventlog.Ref) {
	o := l.cfg.Options
	p := o.Prompt
	if p == nil || len(p.Sections) == 0 {
		return o.SystemPrompt, eventlog.SystemPromptRef
	}
	parts := make([]string, 0, len(p.Sections)+1)
	if o.SystemPrompt != "" {
		parts = append(parts, o.SystemPrompt)
	}
	for _, s := range p.Sections {
		if t := strings.TrimSpace(s.Text); t != "" {
			parts = append(parts, t)
		}
	}
	return l.substitute(strings.Join(parts, "\n\n")), ""
}

// substitute replaces {{name}} by the agent's variables and the built-ins;
// an unknown name is left as written.
func (l *Loop) substitute(text string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, "{{")
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		j := strings.Index(text[i:], "}}")
		if j < 0 {
			b.WriteString(text)
			return b.String()
		}
		name := strings.TrimSpace(text[i+2 : i+j])
		b.WriteString(text[:i])
		if v, ok := l.variable(name); ok {
			b.WriteString(v)
		} else {
			b.WriteString(text[i : i+j+2])
		}
		text = text[i+j+2:]
	}
}

func (l *Loop) variable(name string) (string, bool) {
	s := l.turn.step.Selection
	switch name {
	case "agent_id":
		return l.cfg.AgentID, true
	case "provider":
		return s.Provider, true
	case "model":
		return s.Model, true
	case "effort":
		return s.Effort, true
	case "turn":
		return strconv.Itoa(l.turn.step.Turn), true
	}
	v, ok := l.cfg.Options.Prompt.Variables[name]
	return v, ok
}
