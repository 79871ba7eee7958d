package eventlog

import (
	"encoding/json"
	"fmt"
)

// Strip returns the journal form of env: the copy written to Temporal history
// beside the facts that already carry its content. An envelope without a Ref
// is kept whole. For message events the content (and the message ID, which
// the Ref repeats) is emptied and the rest kept (list, wake); for events whose
// whole data is an activity result the data is dropped.
func Strip(env Envelope) (Envelope, error) {
	if env.Ref == "" {
		return env, nil
	}
	e, err := Decode(env)
	if err != nil {
		return Envelope{}, err
	}
	var stripped Event
	switch e := e.(type) {
	case InboxInserted:
		e.Content, e.MessageID = "", ""
		stripped = e
	case UserMessage:
		e.Content, e.MessageID = "", ""
		stripped = e
	case SystemMessage:
		e.Content = ""
		stripped = e
	case ContextCompacted: // the summary is the activity result's text
		e.Text = ""
		stripped = e
	case ChildSettled: // the answer is the child's report's text
		e.Text = ""
		stripped = e
	case DecisionMade: // the reason or answer is the decision's text
		e.Text = ""
		stripped = e
	case ToolResult:
		if kind, _, _ := env.Ref.Split(); kind == RefMessage { // an answer or a child's report
			e.Content = ""
			stripped = e
			break
		}
		env.Data = nil
		return env, nil
	default:
		env.Data = nil
		return env, nil
	}
	env.Data, err = json.Marshal(stripped)
	if err != nil {
		return Envelope{}, fmt.Errorf("strip %s (seq %d): %w", env.Type, env.Seq, err)
	}
	return env, nil
}

// Restore is the inverse of Strip given what env.Ref points at: content for
// message events, or the JSON object that holds the event's fields (an
// activity result or input; fields the event does not have are dropped).
func Restore(env Envelope, content string, whole json.RawMessage) (Envelope, error) {
	if env.Ref == "" {
		return env, nil
	}
	if len(env.Data) == 0 {
		if len(whole) == 0 {
			return Envelope{}, fmt.Errorf("restore %s (seq %d): %w from %s", env.Type, env.Seq, ErrNoData, env.Ref)
		}
		env.Data = whole
		e, err := Decode(env)
		if err != nil {
			return Envelope{}, err
		}
		env.Data, err = json.Marshal(e)
		if err != nil {
			return Envelope{}, fmt.Errorf("restore %s (seq %d): %w", env.Type, env.Seq, err)
		}
		return env, nil
	}
	if len(whole) > 0 { // fields from the referenced object, then the kept ones
		return restoreMerged(env, whole)
	}
	e, err := Decode(env)
	if err != nil {
		return Envelope{}, err
	}
	_, key, _ := env.Ref.Split()
	var filled Event
	switch e := e.(type) {
	case InboxInserted:
		e.Content, e.MessageID = content, MessageID(key)
		filled = e
	case UserMessage:
		e.Content, e.MessageID = content, MessageID(key)
		filled = e
	case SystemMessage:
		e.Content = content
		filled = e
	case ChildSettled:
		e.Text = content
		filled = e
	case DecisionMade:
		e.Text = content
		filled = e
	case ToolResult:
		e.Content = content
		filled = e
	default:
		return Envelope{}, fmt.Errorf("restore %s (seq %d): no content field for ref %s", env.Type, env.Seq, env.Ref)
	}
	env.Data, err = json.Marshal(filled)
	if err != nil {
		return Envelope{}, fmt.Errorf("restore %s (seq %d): %w", env.Type, env.Seq, err)
	}
	return env, nil
}

// restoreMerged decodes the referenced object into the event, then the
// fields the journal kept over it.
func restoreMerged(env Envelope, whole json.RawMessage) (Envelope, error) {
	kept := env.Data
	env.Data = whole
	e, err := Decode(env)
	if err != nil {
		return Envelope{}, err
	}
	switch ev := e.(type) {
	case ContextCompacted:
		var k ContextCompacted
		if err := json.Unmarshal(kept, &k); err != nil {
			return Envelope{}, fmt.Errorf("restore %s (seq %d): %w", env.Type, env.Seq, err)
		}
		ev.Keep = k.Keep
		e = ev
	default:
		return Envelope{}, fmt.Errorf("restore %s (seq %d): no merge for ref %s", env.Type, env.Seq, env.Ref)
	}
	env.Data, err = json.Marshal(e)
	if err != nil {
		return Envelope{}, fmt.Errorf("restore %s (seq %d): %w", env.Type, env.Seq, err)
	}
	return env, nil
}
