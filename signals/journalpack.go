package signals

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tetherdev/tether/eventlog"
)

// journalFields are the events whose data the journal writes as a JSON
// array of values in this order, keys left out, trailing absent values
// dropped and absent ones in between null: ["next-turn",true] for an
// inbox/inserted's {"list":"next-turn","wake":true}. They are the events
// every turn records, most of a journal's bytes after the content-free
// refs; common fields come first. Data with a field not listed here keeps
// the object form, so a new field never needs this table to be right.
var journalFields = map[eventlog.Type][]string{
	eventlog.TypeInboxInserted:  {"list", "wake", "message_id", "content"},
	eventlog.TypeInboxClaimed:   {"message_id", "list", "turn"},
	eventlog.TypeInboxDiscarded: {"message_id", "list", "outcome", "cause"},
	eventlog.TypeTurnStart:      {"turn", "retry_of"},
	eventlog.TypeTurnEnd:        {"turn", "reason", "error"},
	eventlog.TypeStepStart:      {"turn", "step", "provider", "model", "effort"},
	eventlog.TypeStepEnd:        {"turn", "step"},
	eventlog.TypeStatus:         {"status"},
	eventlog.TypeRequestHeader:  {"provider", "model", "effort", "max_tokens", "tools"},
	eventlog.TypeRequestContext: {"messages", "tokens"},
}

var jsonNull = json.RawMessage("null")

// packData is data in the journal's form for t.
func packData(t eventlog.Type, data json.RawMessage) json.RawMessage {
	names, ok := journalFields[t]
	if !ok || len(data) == 0 || data[0] != '{' {
		return data
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return data
	}
	vals := make([]json.RawMessage, 0, len(names))
	for _, name := range names {
		v, ok := obj[name]
		if !ok {
			v = jsonNull
		}
		vals = append(vals, v)
		delete(obj, name)
	}
	if len(obj) > 0 {
		return data
	}
	for len(vals) > 0 && string(vals[len(vals)-1]) == "null" {
		vals = vals[:len(vals)-1]
	}
	packed, err := json.Marshal(vals)
	if err != nil {
		return data
	}
	return packed
}

// unpackData is packed data back in the event's own form: what
// eventlog.Encode (or Strip) made of it.
func unpackData(t eventlog.Type, data json.RawMessage) (json.RawMessage, error) {
	data = bytes.TrimSpace(data) // JSON allows it; the form is told by the first byte
	names, ok := journalFields[t]
	var raw json.RawMessage
	switch {
	case len(data) == 0 || data[0] != '[' && (!ok || data[0] != '{'):
		return data, nil
	case data[0] == '{': // the object form of a packed type: made canonical below
		raw = data
	default:
		var vals []json.RawMessage
		if err := json.Unmarshal(data, &vals); err != nil || !ok || len(vals) > len(names) {
			return nil, fmt.Errorf("journal entry %s: data %s is not in its field order", t, data)
		}
		obj := make(map[string]json.RawMessage, len(vals))
		for i, v := range vals {
			if string(v) != "null" {
				obj[names[i]] = v
			}
		}
		var err error
		if raw, err = json.Marshal(obj); err != nil {
			return nil, err
		}
	}
	e, err := eventlog.Decode(eventlog.Envelope{Type: t, Data: raw})
	if err != nil {
		return nil, err
	}
	return json.Marshal(e)
}
