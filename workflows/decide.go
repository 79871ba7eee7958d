package workflows

import (
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Next applies every transition that needs no I/O and returns the command
// that is due. It never returns nil; when there is nothing to do it returns
// AwaitWork, so the shell always blocks somewhere instead of spinning.
func (c *Core) Next(now time.Time) Command {
	for {
		if c.err != nil {
			return Fail{Err: c.err}
		}
		switch c.phase {
		case phaseNoTurn:
			if c.disposed {
				return c.finish(now)
			}
			if !c.HasWork() {
				c.setStatus(now, eventlog.StatusIdle)
				return AwaitWork{Journal: c.TakeJournal()}
			}
			c.startTurn(now)
		case phaseStepDue:
			c.betweenSteps(now)
			if c.phase == phaseModel {
				return c.callModel()
			}
		case phaseModel:
			return c.callModel()
		case phaseTools:
			return c.runTools(now)
		case phaseStepDone:
			c.record(now, "", eventlog.StepEnd{Turn: c.state.Turn, Step: c.state.Step})
			c.phase = phaseStepDue
		}
	}
}

func (c *Core) setStatus(now time.Time, s eventlog.Status) {
	if c.state.Status != s {
		c.record(now, "", eventlog.StatusChanged{Status: s})
	}
}

// startTurn opens a turn; its first step claims the batch.
func (c *Core) startTurn(now time.Time) {
	c.setStatus(now, eventlog.StatusRunning)
	c.record(now, "", eventlog.TurnStart{Turn: c.state.Turn + 1})
	c.last, c.cancelCause = stepOutcome{}, ""
	c.phase = phaseStepDue
}

// betweenSteps applies the continuation rule: tool calls and waking steering
// require another step; a concluding tool result ends the tool loop; a
// failure or cancel closes the turn.
func (c *Core) betweenSteps(now time.Time) {
	first := c.state.Step == 0
	switch {
	case c.cancelCause != "":
		c.endTurn(now, eventlog.EndCanceled, c.cancelCause)
	case c.last.failed != "":
		c.endTurn(now, eventlog.EndFailed, c.last.failed)
	case !first && !c.wantsStep():
		reason := eventlog.EndCompleted
		if c.last.concluded {
			reason = eventlog.EndConcluded
		}
		c.endTurn(now, reason, "")
	case c.state.Step >= c.opts.MaxSteps:
		c.endTurn(now, eventlog.EndFailed, fmt.Sprintf("step limit %d reached", c.opts.MaxSteps))
	default:
		c.startStep(now, first)
	}
}

func (c *Core) wantsStep() bool {
	if c.last.toolCalls && !c.last.concluded {
		return true
	}
	for _, p := range c.state.Inbox.NextStep {
		if p.Wake {
			return true
		}
	}
	return false
}

func (c *Core) endTurn(now time.Time, reason eventlog.EndReason, msg string) {
	c.record(now, "", eventlog.TurnEnd{Turn: c.state.Turn, Reason: reason, Error: msg})
	c.phase, c.cancelCause = phaseNoTurn, ""
}

// startStep claims the pending next-step input (plus one next-turn message on
// a turn's first step), opens the step and admits the claimed messages.
func (c *Core) startStep(now time.Time, first bool) {
	batch := c.claim(now, first)
	turn, step := c.state.Turn, c.state.Step+1
	c.record(now, "", eventlog.StepStart{Turn: turn, Step: step, Provider: c.opts.Provider, Model: c.opts.Model})
	if p := c.opts.SystemPrompt; p != c.state.SystemPrompt {
		c.record(now, eventlog.SystemPromptRef, eventlog.SystemMessage{Content: p})
	}
	for _, p := range batch {
		c.record(now, eventlog.MessageRef(p.ID), eventlog.UserMessage{MessageID: p.ID, Content: p.Content})
	}
	c.last, c.concluded = stepOutcome{}, false
	c.phase = phaseModel
}

func (c *Core) claim(now time.Time, first bool) []eventlog.Pending {
	batch := append([]eventlog.Pending(nil), c.state.Inbox.NextStep...)
	for _, p := range batch {
		c.record(now, "", eventlog.InboxClaimed{MessageID: p.ID, List: eventlog.NextStep, Turn: c.state.Turn})
	}
	if next := c.state.Inbox.NextTurn; first && len(next) > 0 {
		p := next[0]
		c.record(now, "", eventlog.InboxClaimed{MessageID: p.ID, List: eventlog.NextTurn, Turn: c.state.Turn})
		batch = append(batch, p)
	}
	return batch
}

func (c *Core) callModel() CallModel {
	s := c.state
	id := fmt.Sprintf("model-%d-%d", s.Turn, s.Step)
	model := c.opts.Model
	if model == "" {
		model = "default"
	}
	return CallModel{
		ActivityID: id,
		Summary:    fmt.Sprintf("model %s turn %d step %d", model, s.Turn, s.Step),
		Input: signals.ModelInput{
			Ref: signals.LogRef{Upto: s.Len},
			Call: signals.CallConfig{
				Provider: c.opts.Provider, Model: c.opts.Model, MaxTokens: c.opts.MaxTokens,
				Tools: c.opts.Tools, Turn: s.Turn, Step: s.Step,
			},
			Journal: c.TakeJournal(),
		},
	}
}

// finish discards what is still pending and completes the workflow.
func (c *Core) finish(now time.Time) Command {
	c.discardAll(now, eventlog.DiscardDisposed, c.dispose)
	c.setStatus(now, eventlog.StatusIdle)
	if c.err != nil {
		return Fail{Err: c.err}
	}
	return Finish{Result: signals.AgentResult{LogLen: c.state.Len, Journal: c.TakeJournal()}}
}
