package a2aserver

import (
	"github.com/tetherdev/tether/eventlog"
)

// turnView is what an agent's log says of one message: whether it arrived,
// the turn that took it, how that turn settled, the answer it gave and the
// person it waits for. It is folded from the durable log alone, so a
// tasks/get after a server restart answers the same.
type turnView struct {
	found     bool
	claimed   bool
	turn      int // the turn that claimed the message (its first, before retries)
	discarded eventlog.DiscardOutcome
	settled   *eventlog.Settlement
	answer    string
	waiting   []eventlog.DecisionRequested // undecided, in the message's turn
	// failed is the turn's failed end that no retry followed yet: settled
	// once the agent is idle.
	failed *eventlog.TurnEnd
	// question is the arguments of the call the first waiting decision is
	// about (ask_human's question).
	question string
	args     map[string]string
	// lastStep is the turn's latest model call (its turn and step): the
	// call whose live tokens a stream waits to see end before the final
	// artifact.
	lastStep [2]int
}

// foldTurn reads log for message id.
func foldTurn(log []eventlog.Envelope, id eventlog.MessageID) (turnView, error) {
	var (
		v       turnView
		settler eventlog.Settler
		root    = map[int]int{} // turn -> the turn it retries, transitively
		current int
	)
	for _, env := range log {
		e, err := eventlog.Decode(env)
		if err != nil {
			return v, err
		}
		for _, s := range settler.Apply(e) {
			if v.claimed && root[s.Turn] == v.turn && v.settled == nil {
				s := s
				v.settled = &s
			}
		}
		mine := v.claimed && root[current] == v.turn && v.settled == nil
		switch e := e.(type) {
		case eventlog.InboxInserted:
			if e.MessageID == id {
				v.found = true
			}
		case eventlog.InboxDiscarded:
			if e.MessageID == id && !v.claimed {
				v.discarded = e.Outcome
			}
		case eventlog.TurnStart:
			current = e.Turn
			root[e.Turn] = e.Turn
			if v.claimed && e.RetryOf != 0 && root[e.RetryOf] == v.turn {
				v.failed = nil
			}
			if e.RetryOf != 0 {
				root[e.Turn] = root[e.RetryOf]
			}
		case eventlog.InboxClaimed:
			if e.MessageID == id && !v.claimed {
				v.claimed, v.turn = true, root[e.Turn]
				if _, ok := root[e.Turn]; !ok {
					v.turn = e.Turn
					root[e.Turn] = e.Turn
				}
			}
		case eventlog.StepStart:
			if mine {
				v.lastStep = [2]int{e.Turn, e.Step}
			}
		case eventlog.TurnEnd:
			if mine && e.Reason == eventlog.EndFailed {
				end := e
				v.failed = &end
			}
		case eventlog.AssistantMessage:
			if mine && e.Text != "" {
				v.answer = e.Text
			}
			if mine {
				for _, c := range e.ToolCalls {
					if v.args == nil {
						v.args = map[string]string{}
					}
					v.args[c.ID] = string(c.Arguments)
				}
			}
		case eventlog.DecisionRequested:
			if mine {
				v.waiting = append(v.waiting, e)
			}
		case eventlog.DecisionMade:
			for i, w := range v.waiting {
				if w.CallID == e.CallID {
					v.waiting = append(v.waiting[:i], v.waiting[i+1:]...)
					break
				}
			}
		}
	}
	if len(v.waiting) > 0 {
		v.question = v.args[v.waiting[0].CallID]
	}
	return v, nil
}
