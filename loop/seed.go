package loop

import (
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Restore continues the loop from a seed: the log goes on at seed.State.Len
// with the state, context and inbox the previous run left.
func Restore(cfg Config, seed signals.Seed) *Loop {
	l := New(cfg)
	l.state, l.base, l.context = seed.State, seed.State.Len, seed.Context
	if seed.Selection != (signals.Selection{}) {
		l.state.Selection = seed.Selection
	}
	l.prevRun, l.runs, l.made = seed.PrevRun, seed.Runs, seed.Made
	l.start = false // the agent started in an earlier run
	conv := eventlog.RestoreConversation(seed.Context)
	l.chars, l.system, l.msgs = conv.Chars(), len(seed.Context.System), len(seed.Context.Messages)
	l.contextBytes = conv.Chars()
	sums := seed.RecentSums
	if len(sums) != len(seed.Recent) {
		sums = nil // a seed from before the digests, or a malformed one
	}
	for i, id := range seed.Recent {
		l.recent.add(id)
		if sums != nil && sums[i] != 0 {
			l.recent.sums[id] = sums[i]
		}
	}
	l.rearming = len(l.state.Scheduled) > 0
	// A fork's first run: Step records session/forked first.
	l.fork = seed.Fork
	if l.cfg.Rules >= RulesRewind {
		l.marks = restoredMarks(seed)
	}
	if t := seed.Turn; t != nil && l.state.InTurn { // continued between two steps
		l.turn = turnWork{retry: t.Retry, last: stepOutcome{toolCalls: t.ToolCalls, concluded: t.Concluded},
			failed: t.Failed, lastText: t.LastText}
		l.moveTo(proposing)
	}
	// seed.Journal is the previous run's tail: its Continue-As-New event
	// already wrote it to that run's history.
	return l
}

// continueAsNew answers Continue: at an idle boundary the loop continues as
// new, compacting first when the context would make the seed too large. It
// does not when something came up (a dispose, queued maintenance) or while
// the pending messages would not fit in a seed: the turns they open drain
// them, and the shell asks again at the next boundary.
func (l *Loop) continueAsNew(now time.Time) {
	switch {
	case !l.AtBoundary(), pendingBytes(l.state) > l.cfg.MaxSeedBytes:
	case l.chars > l.cfg.MaxSeedBytes:
		l.startCompaction(now, compaction{purpose: forContinue}, true)
	default:
		l.continued(now, nil)
	}
}

func (l *Loop) continued(_ time.Time, compactionErr error) {
	l.moveTo(finished)
	l.done = true
	l.emit(ContinueAsNew{CompactionErr: compactionErr})
}

// Continuing reports whether the loop is continuing as new: compacting
// for it, or done and waiting for the shell to end the run.
func (l *Loop) Continuing() bool {
	return l.done || l.comp != nil && l.comp.purpose == forContinue
}

// inboxBytes is the content size of the pending messages a seed would carry.
func inboxBytes(in eventlog.Inbox) int {
	n := 0
	for _, l := range [][]eventlog.Pending{in.NextTurn, in.NextStep} {
		for _, p := range l {
			n += len(p.Content)
		}
	}
	return n
}

// Seed captures everything the next run needs: the folded state with both
// inbox lists and their contents, the derived model context, the recent
// message IDs, and the open turn when it continues between two steps.
// Journal and PrevRun are left for the shell: the ContinueAsNew command
// carries the journal (Carry), and the shell knows the run.
func (l *Loop) Seed() (signals.Seed, error) {
	conv, err := l.conversation()
	if err != nil {
		return signals.Seed{}, err
	}
	seed := signals.Seed{
		State: l.state, Context: conv.Snapshot(), Selection: l.state.Selection,
		Recent: append([]eventlog.MessageID(nil), l.recent.order...), RecentSums: l.recent.orderedSums(), Inline: l.inlinePending(), Made: l.made,
		Runs: l.runs + 1,
	}
	if l.cfg.Rules >= RulesRewind {
		m := l.RewindMarks()
		seed.Rewind = &m
	}
	if l.state.InTurn {
		t := l.turn
		seed.Turn = &signals.OpenTurn{Retry: t.retry, ToolCalls: t.last.toolCalls, Concluded: t.last.concluded,
			Failed: t.failed, LastText: t.lastText}
	}
	return seed, l.err
}

// inlinePending lists pending messages a hook made, for readers of seeds
// from before signals.IsMade.
func (l *Loop) inlinePending() []eventlog.MessageID {
	var out []eventlog.MessageID
	for _, lst := range [][]eventlog.Pending{l.state.Inbox.NextStep, l.state.Inbox.NextTurn} {
		for _, p := range lst {
			if signals.IsMade(p.ID) {
				out = append(out, p.ID)
			}
		}
	}
	return out
}

// MaxLogPageBytes bounds one log page's event data and the carried context
// it starts with, far below Temporal's 2 MiB payload limit. A page always
// holds at least one event.
const MaxLogPageBytes = 1 << 20

// Page answers the log query: events with From <= seq < To of this run.
func (l *Loop) Page(req signals.LogRequest) signals.LogPage {
	end := l.base + int64(len(l.log))
	to := req.To
	if to <= 0 || to > end {
		to = end
	}
	limit := req.Limit
	if limit <= 0 || limit > signals.DefaultLogPage {
		limit = signals.DefaultLogPage
	}
	from := max(req.From, l.base)
	page := signals.LogPage{Events: []eventlog.Envelope{}, Len: end, Base: l.base, PrevRun: l.prevRun}
	size := 0
	if req.From < l.base {
		ctx := l.context
		page.Context, size = &ctx, l.contextBytes
	}
	for seq := from; seq < to && len(page.Events) < limit; seq++ {
		env := l.log[seq-l.base]
		size += len(env.Data)
		if size > MaxLogPageBytes && len(page.Events) > 0 {
			break
		}
		page.Events = append(page.Events, env)
	}
	page.Next = from + int64(len(page.Events))
	if page.Next < to && len(page.Events) == 0 {
		page.Next = to
	}
	return page
}

// Status answers the status query and the wait-idle update, bounded
// whatever the agent holds (see signals.StatusOf).
func (l *Loop) Status() signals.StatusView {
	v := signals.StatusOf(l.state)
	v.Due, v.Runs = l.due(), l.runs+1
	return v
}
