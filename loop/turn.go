package loop

import (
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// turnWork is the open turn's working set: what the loop holds between the
// events it recorded and the outcomes it waits for. It is empty between
// turns.
type turnWork struct {
	retry    bool               // the open turn is a retry turn
	last     stepOutcome        // what the last closed step left
	failed   string             // a terminal failure, recorded as the turn's error
	step     Step               // the proposed or open step
	batch    []eventlog.Pending // the proposal's claimed batch
	entered  []Message          // pre-step's messages, not yet admitted
	context  string             // runtime context for admission
	call     signals.CallConfig // the open step's frozen call configuration
	callsSeq int64              // seq of the assistant message asking for tools
	failure  eventlog.Failure   // the failed model call being recovered
	tools    *toolRun
	lastText string // the turn's latest assistant text: a child's report
}

// stepOutcome is what the last closed step leaves for the continuation rule.
type stepOutcome struct {
	toolCalls bool // the model asked for tools and they ran
	concluded bool // a tool result carried concludesTurn
}

// advance makes every transition that needs no I/O, emitting the commands
// they need, until the loop waits for an outcome or for work.
func (l *Loop) advance(now time.Time) {
	for l.err == nil {
		switch l.phase {
		case idle:
			if l.turnEnded { // the shell may continue as new before the next turn opens
				l.turnEnded = false
				return
			}
			if !l.idle(now) {
				return
			}
		case proposing:
			if l.stepEnded { // the shell may continue as new before the next step
				return
			}
			l.propose(now)
		default:
			return
		}
	}
}

// idle finishes a disposed agent, opens a turn when work is due, runs due
// maintenance, or settles idle. It reports whether it moved on.
func (l *Loop) idle(now time.Time) bool {
	s := l.state
	switch {
	case l.start:
		l.startSession()
		return false
	case s.Disposing:
		l.finish(now)
		return false
	case l.due():
		l.openTurn(now, 0)
		return true
	case len(s.Maintenance) > 0 && s.Maintenance[0] == string(signals.TaskUpgrade):
		l.setStatus(now, eventlog.StatusIdle)
		l.upgraded(now)
		return len(l.state.Maintenance) > 0 // the next task, if any, before the run continues as new
	case len(s.Maintenance) > 0:
		l.setStatus(now, eventlog.StatusIdle)
		l.startCompaction(now, compaction{purpose: forMaintenance}, true)
		return l.phase == idle
	}
	l.setStatus(now, eventlog.StatusIdle)
	l.carry() // going idle: what waits becomes durable now
	return false
}

func (l *Loop) setStatus(now time.Time, s eventlog.Status) {
	if l.state.Status != s {
		l.record(now, "", eventlog.StatusChanged{Status: s})
	}
}

// finish discards what is still pending or scheduled (their timers die
// with the run), ends queued maintenance and
// completes the workflow.
func (l *Loop) finish(now time.Time) {
	l.discardAll(now, eventlog.DiscardDisposed, l.state.DisposeCause)
	l.discardScheduled(now, eventlog.DiscardDisposed, l.state.DisposeCause)
	l.orch.disposeChildren() // a tree ends with its root
	if p := l.cfg.Parent; p != nil {
		l.emit(ReportToParent{Report: signals.ChildReport{ID: signals.ChildReportID(l.cfg.AgentID, 0), Child: l.cfg.AgentID,
			Spent: l.state.Usage, Ended: "disposed: " + l.state.DisposeCause}})
	}
	for _, t := range l.state.Maintenance {
		l.record(now, "", eventlog.MaintenanceDone{Task: t, Error: signals.ErrDisposed.Error()})
		l.emit(AnswerMaintenance{Result: signals.Maintained{Task: signals.MaintenanceTask(t)}, Err: signals.ErrDisposed})
	}
	l.setStatus(now, eventlog.StatusIdle)
	l.moveTo(finished)
	l.carry()
	l.emit(Finish{Result: signals.AgentResult{LogLen: l.state.Len, Usage: l.state.Usage}})
}

// openTurn opens a turn; retryOf > 0 opens a retry turn over the same
// state, with no idle in between.
func (l *Loop) openTurn(now time.Time, retryOf int) {
	l.setStatus(now, eventlog.StatusRunning)
	l.record(now, "", eventlog.TurnStart{Turn: l.state.Turn + 1, RetryOf: retryOf})
	l.turn = turnWork{retry: retryOf > 0}
	l.moveTo(proposing)
}

// propose applies the continuation rule between steps: a cancel or failure
// closes the turn; tool calls and pending next-step input require another
// step; a concluding tool result ends the tool loop; a natural stop runs
// the turn-stopping hooks first.
func (l *Loop) propose(now time.Time) {
	s := l.state
	first := s.Step == 0
	switch {
	case s.Canceling != "":
		l.endTurn(now, eventlog.EndCanceled, s.Canceling)
	case l.turn.failed != "":
		l.endTurn(now, eventlog.EndFailed, l.turn.failed)
	case !first && !l.wantsStep():
		l.moveTo(stopping)
		l.emit(RunHooks{Point: PointTurnStopping})
	default:
		l.claim(now, first && !l.turn.retry)  // a retry turn takes no new prompt
		if why := l.overBudget(); why != "" { // claimed, so the work is answered, not retried forever
			l.endTurn(now, eventlog.EndBudget, why)
			return
		}
		l.moveTo(boundary)
		l.emit(RunHooks{Point: PointStepBoundary})
	}
}

// wantsStep: tool calls that did not conclude, or pending next-step input
// (seed 002 claims it before turn-stopping).
func (l *Loop) wantsStep() bool {
	if l.turn.last.toolCalls && !l.turn.last.concluded {
		return true
	}
	return l.nextStepPending()
}

func (l *Loop) nextStepPending() bool {
	return len(l.state.Inbox.NextStep) > 0
}

// claim atomically removes the pending next-step input (plus one next-turn
// message when withPrompt) as the batch of the proposed step.
func (l *Loop) claim(now time.Time, withPrompt bool) {
	s := l.state
	batch := append([]eventlog.Pending(nil), s.Inbox.NextStep...)
	for _, p := range batch {
		l.record(now, "", eventlog.InboxClaimed{MessageID: p.ID, List: eventlog.NextStep, Turn: s.Turn})
	}
	if next := s.Inbox.NextTurn; withPrompt && len(next) > 0 {
		l.record(now, "", eventlog.InboxClaimed{MessageID: next[0].ID, List: eventlog.NextTurn, Turn: s.Turn})
		batch = append(batch, next[0])
	}
	l.turn.batch = batch
	l.turn.step = Step{Turn: s.Turn, Step: s.Step + 1}
}

// stopped applies the turn-stopping hooks' outcome: next-step input they
// (or anyone) left takes another step, otherwise the turn ends.
func (l *Loop) stopped(now time.Time) {
	switch {
	case l.state.Canceling != "": // a policy hook canceled the turn
		l.endTurn(now, eventlog.EndCanceled, l.state.Canceling)
	case l.nextStepPending():
		l.turn.last = stepOutcome{}
		l.moveTo(proposing)
	case l.turn.last.concluded:
		l.endTurn(now, eventlog.EndConcluded, "")
	default:
		l.endTurn(now, eventlog.EndCompleted, "")
	}
}

// endTurn closes the turn: it settles (seed 000's agent/settled), and a
// child reports it to its parent.
func (l *Loop) endTurn(now time.Time, reason eventlog.EndReason, msg string) {
	text := l.turn.lastText
	l.closeTurn(now, reason, msg)
	l.turnEnded = true
	if p := l.cfg.Parent; p != nil {
		l.emit(ReportToParent{Report: signals.ChildReport{ID: signals.ChildReportID(l.cfg.AgentID, l.state.Turn),
			Child: l.cfg.AgentID, Turn: l.state.Turn, Reason: reason, Error: msg, Text: text, Spent: l.state.Usage}})
	}
}

func (l *Loop) closeTurn(now time.Time, reason eventlog.EndReason, msg string) {
	l.record(now, "", eventlog.TurnEnd{Turn: l.state.Turn, Reason: reason, Error: msg})
	l.turn = turnWork{}
	l.moveTo(idle)
}

// retry closes the failed turn and opens a retry turn over the same state,
// with no boundary in between: the chain has not settled.
func (l *Loop) retry(now time.Time) {
	failed := l.state.Turn
	l.closeTurn(now, eventlog.EndFailed, l.turn.failed)
	l.openTurn(now, failed)
}

// failTurn closes the turn after a hook failed: an open step is closed
// (calls in flight are interrupted, dangling calls get abandoned results),
// then the turn ends failed with why, or canceled when it was canceling.
func (l *Loop) failTurn(now time.Time, why string) {
	l.turn.failed = why
	if t := l.turn.tools; l.phase == tooling && t != nil {
		t.halt(l, eventlog.ToolAbandoned, why)
		l.runTools(now)
		return
	}
	for len(l.state.OpenCalls) > 0 && l.err == nil {
		open := l.state.OpenCalls[0]
		l.record(now, "", loopResult(open.ID, open.Name, eventlog.ToolAbandoned, l.abandonWhy()))
	}
	if l.state.InStep {
		l.record(now, "", eventlog.StepEnd{Turn: l.state.Turn, Step: l.state.Step})
	}
	l.moveTo(proposing)
}

func (l *Loop) abandonWhy() string {
	if l.state.Canceling != "" {
		return l.state.Canceling
	}
	return l.turn.failed
}

// overBudget says why the agent may not make another model call, if so.
func (l *Loop) overBudget() string {
	b := l.cfg.Options.Budget
	if b == nil {
		return ""
	}
	tokens, cost := l.orch.spawns().reserved()
	u := l.state.Usage
	if used := u.InputTokens + u.OutputTokens; b.MaxTokens > 0 && used+tokens >= b.MaxTokens {
		return fmt.Sprintf("token budget exhausted: %d of %d tokens used", used, b.MaxTokens) + held(tokens > 0, fmt.Sprint(tokens))
	}
	if spent := b.Prices.Cost(u); b.MaxCost > 0 && spent+cost >= b.MaxCost {
		return fmt.Sprintf("cost budget exhausted: %.4f of %.4f spent", spent, b.MaxCost) + held(cost > 0, fmt.Sprintf("%.4f", cost))
	}
	return ""
}

func held(some bool, what string) string {
	if !some {
		return ""
	}
	return ", " + what + " held by children"
}
