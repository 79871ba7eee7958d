package signals

import (
	"slices"

	"github.com/tetherdev/tether/eventlog"
)

// StatusOf is the status of an agent whose session log folds to s, bounded
// whatever it holds: all of a StatusView but Due and Runs, which depend on
// the loop's rules and on its chain of runs rather than on the log. The
// loop answers its status query with it; the console shows an agent as of
// an earlier position of its log with it.
func StatusOf(s eventlog.State) StatusView {
	v := StatusView{
		Status: s.Status, Turn: s.Turn, Step: s.Step, InTurn: s.InTurn,
		NextTurn: previews(s.Inbox.NextTurn), NextStep: previews(s.Inbox.NextStep),
		NextTurnLen: len(s.Inbox.NextTurn), NextStepLen: len(s.Inbox.NextStep),
		LogLen: s.Len, Disposed: s.Disposing, Usage: s.Usage, Waits: s.Waits,
	}
	for _, p := range s.Pending {
		pv := PendingView{PendingDecision: p}
		if i := slices.IndexFunc(s.OpenCalls, func(c eventlog.ToolCallRequest) bool { return c.ID == p.CallID }); i >= 0 {
			pv.Arguments = Preview(string(s.OpenCalls[i].Arguments))
		}
		v.Pending = append(v.Pending, pv)
	}
	for _, c := range s.Children {
		v.Children = append(v.Children, ChildView{ID: c.ID, Mode: c.Mode, Settled: c.Settled, Spent: c.Spent})
	}
	scheduledView(&v, s.Scheduled)
	return v
}

// previews are the oldest MaxStatusItems messages of a list, each cut to
// a preview.
func previews(p []eventlog.Pending) []eventlog.Pending {
	out := make([]eventlog.Pending, 0, min(len(p), MaxStatusItems))
	for _, m := range p[:min(len(p), MaxStatusItems)] {
		m.Content = Preview(m.Content)
		out = append(out, m)
	}
	return out
}

// scheduledView is the bounded status of the scheduled messages: the
// first MaxStatusItems cut to previews, their count and the earliest time.
func scheduledView(v *StatusView, s []eventlog.Scheduled) {
	v.ScheduledLen = len(s)
	for i, m := range s {
		if i < MaxStatusItems {
			m.Content = Preview(m.Content)
			v.Scheduled = append(v.Scheduled, m)
		}
		if v.NextAt.IsZero() || m.At.Before(v.NextAt) {
			v.NextAt = m.At
		}
	}
}
