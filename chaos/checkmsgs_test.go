package chaos

import (
	"fmt"
	"strings"

	"github.com/tetherdev/tether/eventlog"
)

// checkMessages: every message in the log was inserted once, claimed once
// and its turn ended; every message the fleet got accepted is among them,
// with the content sent, its turn completed.
func checkMessages(r *record, sent map[eventlog.MessageID]sentMessage, v *violations) {
	inserted, claimed := map[eventlog.MessageID]int{}, map[eventlog.MessageID]int{}
	content := map[eventlog.MessageID]string{}
	for _, e := range r.events {
		switch e := e.(type) {
		case eventlog.InboxInserted:
			inserted[e.MessageID]++
			content[e.MessageID] = e.Content
		case eventlog.InboxClaimed:
			claimed[e.MessageID]++
		}
	}
	outcomes := eventlog.ConsumedWork(r.events)
	for id, n := range inserted {
		o := outcomes[id]
		switch {
		case n != 1:
			v.add("%s: message %s inserted %d times", r.id, id, n)
		case o.Progress == eventlog.ProgressDone && claimed[id] != 1:
			v.add("%s: message %s claimed %d times", r.id, id, claimed[id])
		case o.Progress == eventlog.ProgressDiscarded:
			v.add("%s: message %s discarded (%s)", r.id, id, o.Discard)
		case o.Progress != eventlog.ProgressDone:
			v.add("%s: message %s never answered: %s", r.id, id, o.Progress)
		}
	}
	for id, m := range sent {
		o := outcomes[id]
		switch {
		case inserted[id] == 0:
			v.add("%s: accepted message %s (%s, signal %t) is not in the log", r.id, id, m.op, m.signal)
		case content[id] != m.content:
			v.add("%s: message %s holds %q, not the %q sent", r.id, id, clip(content[id]), clip(m.content))
		case m.mayCancel && o.TurnEnd == eventlog.EndCanceled:
		case o.TurnEnd != eventlog.EndCompleted && o.TurnEnd != eventlog.EndConcluded:
			v.add("%s: message %s: its turn %d ended %q", r.id, id, o.Turn, o.TurnEnd)
		}
	}
}

// checkDecisions: each call that waited for a person was decided once,
// by the harness, as the harness decided it.
func checkDecisions(r *record, made map[string]decision, v *violations) {
	requested := map[string]int{}
	decided := map[string][]eventlog.DecisionMade{}
	for _, e := range r.events {
		switch e := e.(type) {
		case eventlog.DecisionRequested:
			requested[e.CallID]++
		case eventlog.DecisionMade:
			decided[e.CallID] = append(decided[e.CallID], e)
		}
	}
	for call, n := range requested {
		ds := decided[call]
		want, ok := made[call]
		switch {
		case n != 1 || len(ds) != 1:
			v.add("%s: call %s asked %d times, decided %d times", r.id, call, n, len(ds))
		case !ok:
			v.add("%s: call %s decided by %q, not by the harness", r.id, call, ds[0].Decider)
		case ds[0].Decider != "chaos" || ds[0].Text != want.text || (want.kind == eventlog.NeedApproval && ds[0].Approved != want.approved):
			v.add("%s: call %s decided %+v, the harness decided %+v", r.id, call, ds[0], want)
		}
	}
	for call := range made {
		if requested[call] == 0 {
			v.add("%s: the harness decided call %s, which the log never asked", r.id, call)
		}
	}
}

// checkFlood: nothing the flood sent got into a fleet agent's log but
// messages with invalid UTF-8 in their content (decoding makes it U+FFFD,
// so they are valid messages); no model selection and no report from a
// child the agent never started got in.
func checkFlood(r *record, v *violations) (utf8 int) {
	children := map[string]bool{}
	for _, e := range r.events {
		if s, ok := e.(eventlog.ChildStarted); ok {
			children[s.ChildID] = true
		}
	}
	settled := map[string]bool{}
	for _, e := range r.events {
		switch e := e.(type) {
		case eventlog.InboxInserted:
			switch {
			case strings.HasPrefix(e.Content, floodMarker+"UTF8 ") && strings.HasPrefix(string(e.MessageID), "flood-u"):
				utf8++
			case strings.Contains(e.Content, floodMarker):
				v.add("%s: flood input got in as message %s: %q", r.id, e.MessageID, clip(e.Content))
			}
			if e.From != nil && e.From.Kind == eventlog.ByChild && !children[e.From.ID] {
				v.add("%s: message %s from %s, a child it never started", r.id, e.MessageID, e.From.ID)
			}
		case eventlog.ChildSettled:
			key := fmt.Sprintf("%s#%d", e.ChildID, e.Turn)
			if !children[e.ChildID] || settled[key] || strings.Contains(e.Text, floodMarker) {
				v.add("%s: report of child %s turn %d got in (again?): %q", r.id, e.ChildID, e.Turn, clip(e.Text))
			}
			settled[key] = true
		case eventlog.ModelSelected:
			if e.Refused == "" && !e.Resolved { // a refusal is recorded; the worker's defaults resolved are no one's switch
				v.add("%s: a model selection got in: %+v", r.id, e.Selection)
			}
		}
	}
	return utf8
}
