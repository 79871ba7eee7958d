package eventlog

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// ByTimer is the initiator of a scheduled message when its durable timer
// delivers it into the inbox (see MessageScheduled).
const ByTimer InitiatorKind = "timer"

// MessageScheduled records an accepted message that enters List at At: a
// durable timer delivers it then, as an InboxInserted from ByTimer with the
// same MessageID (its content is not repeated: both refer to the payload
// that brought the message). Until then it is not in the inbox: no turn
// claims it, a cancel leaves it, a dispose discards it (an InboxDiscarded
// naming it).
type MessageScheduled struct {
	MessageID MessageID `json:"message_id,omitempty"`
	List      List      `json:"list"`
	Content   string    `json:"content,omitempty"`
	Wake      bool      `json:"wake"`
	At        time.Time `json:"at"`
}

// Scheduled is a message waiting for its time (MessageScheduled).
type Scheduled struct {
	ID      MessageID `json:"id"`
	List    List      `json:"list"`
	Content string    `json:"content"`
	Wake    bool      `json:"wake,omitempty"`
	At      time.Time `json:"at"`
}

func (MessageScheduled) Type() Type { return TypeMessageScheduled }
func (MessageScheduled) isEvent()   {}

// FindScheduled returns the scheduled message id.
func (s State) FindScheduled(id MessageID) (Scheduled, bool) {
	i := slices.IndexFunc(s.Scheduled, func(m Scheduled) bool { return m.ID == id })
	if i < 0 {
		return Scheduled{}, false
	}
	return s.Scheduled[i], true
}

func (s *State) schedule(e MessageScheduled) error {
	if !e.List.Valid() {
		return fmt.Errorf("unknown list %q", e.List)
	}
	if e.At.IsZero() {
		return errors.New("scheduled without a time")
	}
	if s.Holds(e.MessageID) {
		return fmt.Errorf("message %q is already pending or scheduled", e.MessageID)
	}
	s.Scheduled = append(slices.Clip(s.Scheduled),
		Scheduled{ID: e.MessageID, List: e.List, Content: e.Content, Wake: e.Wake, At: e.At})
	return nil
}

// Holds reports whether id is pending in either list or scheduled: a
// message the fold would refuse to insert or schedule again.
func (s State) Holds(id MessageID) bool {
	_, _, pending := s.Inbox.Find(id)
	_, scheduled := s.FindScheduled(id)
	return pending || scheduled
}

// unschedule removes a scheduled message that its timer delivered (into
// list) or that was discarded.
func (s *State) unschedule(id MessageID, list List) error {
	i := slices.IndexFunc(s.Scheduled, func(m Scheduled) bool { return m.ID == id })
	if i < 0 || s.Scheduled[i].List != list {
		return fmt.Errorf("message %q is not scheduled for %s", id, list)
	}
	s.Scheduled = slices.Delete(slices.Clone(s.Scheduled), i, i+1)
	return nil
}
