package eventlog

import (
	"fmt"
	"strings"
)

// Ref names the fact in a Temporal history that carries an event's content,
// so the content is written to history once. Forms:
//
//	msg:<MessageID>    the signal, update or start input that delivered the message
//	act:<ActivityID>   the result of the activity with that ID
//	in:<ActivityID>    the input of the activity with that ID
//	la:<CallID>        the result of the local activity that ran that tool call
//	                   (the first not yet taken, in history order)
//	start:system       the system prompt in the run's start input
type Ref string

// Ref kinds.
const (
	RefMessage  = "msg"
	RefActivity = "act"
	RefInput    = "in"
	RefLocal    = "la"
	RefStart    = "start"
)

// MessageRef refers to the payload that delivered message id.
func MessageRef(id MessageID) Ref { return Ref(RefMessage + ":" + string(id)) }

// ActivityRef refers to the result of the activity with the given ID.
func ActivityRef(activityID string) Ref { return Ref(RefActivity + ":" + activityID) }

// InputRef refers to the input of the activity with the given ID.
func InputRef(activityID string) Ref { return Ref(RefInput + ":" + activityID) }

// LocalRef refers to the result of the local activity that ran callID.
func LocalRef(callID string) Ref { return Ref(RefLocal + ":" + callID) }

// SystemPromptRef refers to the system prompt of the run's start input.
const SystemPromptRef Ref = RefStart + ":system"

// Split returns the kind and key of r.
func (r Ref) Split() (kind, key string, err error) {
	kind, key, ok := strings.Cut(string(r), ":")
	if !ok || key == "" {
		return "", "", fmt.Errorf("eventlog: malformed ref %q", string(r))
	}
	return kind, key, nil
}
