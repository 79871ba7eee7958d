package llm

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/tetherdev/tether/eventlog"
)

// Message returns m without the secret in anything the server wrote: the
// text, the model name and every tool call's ID, name and arguments. A
// model that read the key somewhere (a tool result, a file) may write it
// back in a normal reply; the reply is recorded in history, so it is
// scrubbed before, like an error. m is not modified.
func (s Scrubber) Message(m eventlog.AssistantMessage) eventlog.AssistantMessage {
	if s.r == nil {
		return m
	}
	m.Text, m.Model = s.String(m.Text), s.String(m.Model)
	if len(m.ToolCalls) == 0 {
		return m
	}
	calls := slices.Clone(m.ToolCalls)
	for i, c := range calls {
		calls[i] = eventlog.ToolCallRequest{ID: s.String(c.ID), Name: s.String(c.Name), Arguments: s.arguments(c.Arguments)}
	}
	// Two IDs redacted alike would share an idempotency key.
	m.ToolCalls = NormalizeToolCalls(calls)
	return m
}

// Reply scrubs the message of a provider's result, so an adapter returns
// s.Reply(toAssistant(res)); the error passes through (it is scrubbed where
// it is made).
func (s Scrubber) Reply(m eventlog.AssistantMessage, err error) (eventlog.AssistantMessage, error) {
	return s.Message(m), err
}

// arguments scrubs tool call arguments as text, which keeps them byte for
// byte where there is no secret, then each of their strings, keys and
// values, as decoded: a string may spell the key with JSON escapes of its
// own (a "\\u0073k-..." in the text). Only if a decoded string still held
// it, or the first pass broke valid JSON (a key whose quote ended a
// string), are the arguments written anew from their scrubbed strings.
func (s Scrubber) arguments(args json.RawMessage) json.RawMessage {
	out := json.RawMessage(s.String(string(args)))
	base, broke := out, false
	if !json.Valid(out) {
		if !json.Valid(args) {
			return out
		}
		base, broke = args, true
	}
	d := json.NewDecoder(bytes.NewReader(base))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return out
	}
	changed := false
	v = s.value(v, &changed)
	if !changed && !broke {
		return out
	}
	b, err := json.Marshal(v)
	if err != nil {
		return out
	}
	return b
}

// value scrubs every string in v, a decoded JSON value, and notes whether
// any changed.
func (s Scrubber) value(v any, changed *bool) any {
	switch v := v.(type) {
	case string:
		c := s.String(v)
		*changed = *changed || c != v
		return c
	case []any:
		for i := range v {
			v[i] = s.value(v[i], changed)
		}
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[s.value(k, changed).(string)] = s.value(e, changed)
		}
		return m
	}
	return v
}
