package loop

import (
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// purpose is what asked for a compaction, and so where the loop goes on
// once it is done.
type purpose int

const (
	forStep        purpose = iota // pre-step's pressure check: then the step opens
	forRetry                      // request-error's overflow recovery: then retry if it shrank
	forMaintenance                // a maintenance task: then answer it
	forContinue                   // a seed too large: then continue as new
)

// compaction is one compaction in progress (seed 002's dsh-compaction-basic:
// prune old tool results first, then summarise all but the recent
// messages). Every part is a recorded event or an activity, so a crash at
// any point resumes or replays it.
type compaction struct {
	purpose purpose
	after   time.Duration // forRetry: the backoff before the retry turn
	before  int           // context tokens when it began
	keep    int           // messages the summary keeps verbatim
	id      string        // the summary's activity ID
	err     error
}

// startCompaction plans and begins a compaction: pruning is recorded at
// once; a summary, when still needed (or forced), is a Summarize command.
func (l *Loop) startCompaction(now time.Time, c compaction, force bool) {
	p := l.cfg.Options.Compaction.Policy()
	c.before = l.ContextTokens()
	l.comp = &c
	if ids := l.planPrune(p.PruneOver, p.KeepRecent); len(ids) > 0 {
		l.record(now, "", eventlog.ContextPruned{CallIDs: ids})
	}
	target := int(float64(p.Window) * p.Threshold / 2)
	if force || p.Window == 0 || l.ContextTokens() > target {
		if keep := l.summaryKeep(p.KeepRecent); keep >= 0 {
			l.summarize(now, keep)
			return
		}
	}
	l.compacted(now)
}

// summarize asks the model for a summary of all but the last keep messages.
func (l *Loop) summarize(now time.Time, keep int) {
	s := l.state
	l.comp.keep, l.comp.id = keep, signals.SummaryActivityID(s.Len)
	sel := s.Selection
	l.moveTo(compacting)
	l.carry()
	l.emit(Summarize{
		ActivityID: l.comp.id,
		Summary:    fmt.Sprintf("compact context turn %d (keep %d)", s.Turn, keep),
		Input: signals.ModelInput{
			Ref: signals.LogRef{Upto: s.Len},
			Call: signals.CallConfig{Provider: sel.Provider, Model: sel.Model, Turn: s.Turn, Step: s.Step,
				Summarize: &signals.Summarize{Keep: keep}},
		},
	})
}

func (l *Loop) summarized(now time.Time, in Summarized) {
	if in.Err != nil {
		l.comp.err = fmt.Errorf("summarise context: %w", in.Err)
	} else {
		l.record(now, eventlog.ActivityRef(l.comp.id), eventlog.ContextCompacted{Text: in.Text, Keep: l.comp.keep})
	}
	l.compacted(now)
}

// compacted goes on to what asked for the compaction.
func (l *Loop) compacted(now time.Time) {
	c := *l.comp
	l.comp = nil
	switch c.purpose {
	case forStep:
		if c.err != nil {
			l.failTurn(now, "compaction failed: "+c.err.Error())
			return
		}
		l.openStep(now)
	case forRetry:
		if c.err != nil || l.ContextTokens() >= c.before || l.state.Canceling != "" {
			l.moveTo(proposing) // the original failure stands
			return
		}
		l.retryAfter(now, c.after)
	case forMaintenance:
		task := l.state.Maintenance[0]
		done := eventlog.MaintenanceDone{Task: task, Before: c.before, After: l.ContextTokens()}
		if c.err != nil {
			done.Error = c.err.Error()
		}
		l.record(now, "", done)
		l.moveTo(idle)
		l.emit(AnswerMaintenance{Result: signals.Maintained{Task: signals.MaintenanceTask(task), Before: done.Before, After: done.After}, Err: c.err})
	case forContinue:
		l.continued(now, c.err)
	}
}

// planPrune picks the tool results to prune: longer than over bytes, not
// among the last keepRecent messages, not pruned yet.
func (l *Loop) planPrune(over, keepRecent int) []string {
	conv, err := l.conversation()
	if err != nil || over < 0 {
		return nil
	}
	msgs := withoutSystem(conv.Messages())
	var ids []string
	for _, m := range msgs[:max(0, len(msgs)-keepRecent)] {
		if m.Role == eventlog.RoleTool && len(m.Content) > over && m.Content != eventlog.PrunedNotice {
			ids = append(ids, m.ToolCallID)
		}
	}
	return ids
}

// summaryKeep says how many recent messages a summary keeps verbatim: at
// least keepRecent, starting at a user message so no tool result loses its
// call. It returns -1 when there is nothing before them to summarise.
// Under rules 3 what it keeps is bounded by bytes too (half of what a seed
// carries): a few large messages kept verbatim made a seed larger than
// Temporal's 2 MiB payload limit, and the run could not continue as new.
func (l *Loop) summaryKeep(keepRecent int) int {
	conv, err := l.conversation()
	if err != nil {
		return -1
	}
	msgs := withoutSystem(conv.Messages())
	start := max(0, len(msgs)-keepRecent)
	for start > 0 && msgs[start].Role != eventlog.RoleUser {
		start--
	}
	if kept, limit := chars(msgs[start:]), l.cfg.MaxSeedBytes/2; kept > limit {
		for ; start < len(msgs) && (kept > limit || msgs[start].Role != eventlog.RoleUser); start++ {
			kept -= msgs[start].Chars()
		}
	}
	if start == 0 {
		return -1
	}
	return len(msgs) - start
}

// chars is what msgs add to the model context (eventlog.Message.Chars).
func chars(msgs []eventlog.Message) int {
	n := 0
	for _, m := range msgs {
		n += m.Chars()
	}
	return n
}

func withoutSystem(msgs []eventlog.Message) []eventlog.Message {
	if len(msgs) > 0 && msgs[0].Role == eventlog.RoleSystem {
		return msgs[1:]
	}
	return msgs
}
