package transcript

import "github.com/tetherdev/tether/eventlog"

// Child is a child agent as its parent's log tells it: started, its
// settled turns and what they spent, and how it ended.
type Child struct {
	ID      string
	Mode    eventlog.ChildMode
	Settled int
	Usage   Usage
	// Ended is how its workflow closed ("" while it runs).
	Ended string
}

// children folds the child events of the log; they also render as items.
func (t *Transcript) children(e eventlog.Event) {
	switch e := e.(type) {
	case eventlog.ChildStarted:
		t.Children = append(t.Children, &Child{ID: e.ChildID, Mode: e.Mode})
	case eventlog.ChildSettled:
		if c := t.Child(e.ChildID); c != nil {
			c.Settled++
			c.Usage.Add(t.usage(e.Usage))
		}
	case eventlog.ChildEnded:
		if c := t.Child(e.ChildID); c != nil {
			c.Ended = e.Status
		}
	case eventlog.DecisionRequested:
		if e.Kind == eventlog.NeedAnswer {
			t.questions[e.CallID] = true
		}
	}
}

// Child returns the child with id, or nil.
func (t *Transcript) Child(id string) *Child {
	for _, c := range t.Children {
		if c.ID == id {
			return c
		}
	}
	return nil
}
