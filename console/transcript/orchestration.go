package transcript

import (
	"fmt"

	"github.com/tetherdev/tether/eventlog"
)

// orchestrationNote tells a child, decision or wait event in agent
// language; "" for other events.
func orchestrationNote(e eventlog.Event) string {
	switch e := e.(type) {
	case eventlog.ChildStarted:
		return fmt.Sprintf("child agent %s started (%s)", e.ChildID, e.Mode)
	case eventlog.ChildSettled:
		s := fmt.Sprintf("child agent %s reported turn %d: %s", e.ChildID, e.Turn, e.Reason)
		if e.Error != "" {
			s += ": " + e.Error
		}
		return s
	case eventlog.ChildEnded:
		return fmt.Sprintf("child agent %s ended: %s", e.ChildID, e.Status)
	case eventlog.DecisionRequested:
		if e.Kind == eventlog.NeedAnswer {
			return fmt.Sprintf("%s waits for a person's answer", e.Name)
		}
		return fmt.Sprintf("%s waits for a person's approval", e.Name)
	case eventlog.DecisionMade:
		verb := "denied"
		if e.Approved {
			verb = "approved"
		}
		if e.Text == "" {
			return fmt.Sprintf("call %s %s by %s", e.CallID, verb, or(e.Decider, "a person"))
		}
		return fmt.Sprintf("call %s %s by %s: %s", e.CallID, verb, or(e.Decider, "a person"), Clip(e.Text, 200))
	case eventlog.WaitStarted:
		return "waiting until " + e.Until.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	return ""
}

// answerNote tells the answer to a question.
func answerNote(e eventlog.DecisionMade) string {
	return fmt.Sprintf("%s answered by %s: %s", e.CallID, or(e.Decider, "a person"), Clip(e.Text, 200))
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
