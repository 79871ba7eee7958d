package workflows

import (
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// startTurn opens a turn; retryOf > 0 opens a retry turn over the same state
// with no idle in between.
func (c *Core) startTurn(now time.Time, retryOf int) {
	c.setStatus(now, eventlog.StatusRunning)
	c.record(now, "", eventlog.TurnStart{Turn: c.state.Turn + 1, RetryOf: retryOf})
	if retryOf == 0 {
		c.retries = 0
	}
	c.retryTurn = retryOf > 0
	c.last, c.cancelCause = stepOutcome{}, ""
	c.phase = phaseProposal
}

// propose applies the continuation rule between steps: a cancel or failure
// closes the turn; tool calls and waking steering require another step; a
// concluding tool result ends the tool loop; a natural stop runs the
// turn-stopping hooks first.
func (c *Core) propose(now time.Time) {
	first := c.state.Step == 0
	switch {
	case c.cancelCause != "":
		c.endTurn(now, eventlog.EndCanceled, c.cancelCause)
	case c.last.failed != "":
		c.endTurn(now, eventlog.EndFailed, c.last.failed)
	case !first && !c.wantsStep():
		c.phase = phaseStopping
	case c.state.Step >= c.opts.MaxSteps:
		c.endTurn(now, eventlog.EndFailed, fmt.Sprintf("step limit %d reached", c.opts.MaxSteps))
	default:
		c.claim(now, first && !c.retryTurn) // a retry turn takes no new prompt
		c.phase = phaseBoundary
		if why := c.overBudget(); why != "" { // claimed, so the work is answered, not retried forever
			c.endTurn(now, eventlog.EndBudget, why)
		}
	}
}

// overBudget says why the agent may not make another model call, if so.
func (c *Core) overBudget() string {
	b := c.opts.Budget
	if b == nil {
		return ""
	}
	u := c.state.Usage
	if used := u.InputTokens + u.OutputTokens; b.MaxTokens > 0 && used >= b.MaxTokens {
		return fmt.Sprintf("token budget exhausted: %d of %d tokens used", used, b.MaxTokens)
	}
	if cost := b.Prices.Cost(u); b.MaxCost > 0 && cost >= b.MaxCost {
		return fmt.Sprintf("cost budget exhausted: %.4f of %.4f spent", cost, b.MaxCost)
	}
	return ""
}

// wantsStep: tool calls that did not conclude, or steering that wakes.
func (c *Core) wantsStep() bool {
	return c.last.toolCalls && !c.last.concluded || c.state.Inbox.Steering()
}

// stopped is called once the turn-stopping hooks settled: steering they
// recorded takes another step, otherwise the turn ends.
func (c *Core) stopped(now time.Time) {
	if c.cancelCause != "" { // a policy hook canceled the turn
		c.endTurn(now, eventlog.EndCanceled, c.cancelCause)
		return
	}
	if c.state.Inbox.Steering() {
		c.last = stepOutcome{}
		c.phase = phaseProposal
		return
	}
	reason := eventlog.EndCompleted
	if c.last.concluded {
		reason = eventlog.EndConcluded
	}
	c.endTurn(now, reason, "")
}

func (c *Core) endTurn(now time.Time, reason eventlog.EndReason, msg string) {
	c.record(now, "", eventlog.TurnEnd{Turn: c.state.Turn, Reason: reason, Error: msg})
	c.phase, c.cancelCause, c.batch = phaseNoTurn, "", nil
}

// retry closes the failed turn and opens a retry turn over the same state.
func (c *Core) retry(now time.Time) {
	failed := c.state.Turn
	c.endTurn(now, eventlog.EndFailed, c.last.failed)
	c.retries++
	c.startTurn(now, failed)
}

// failTurn closes the turn after a hook failed: an open step is closed
// (dangling calls get error results), then the turn ends failed with why.
func (c *Core) failTurn(now time.Time, why string) {
	if c.cancelCause != "" {
		why = ""
	}
	for len(c.state.OpenCalls) > 0 && c.err == nil {
		open := c.state.OpenCalls[0]
		c.record(now, "", eventlog.ToolResult{CallID: open.ID, Name: open.Name, IsError: true,
			Content: "tool call abandoned: " + firstOf(c.cancelCause, why)})
	}
	if c.state.InStep {
		c.record(now, "", eventlog.StepEnd{Turn: c.state.Turn, Step: c.state.Step})
	}
	if c.cancelCause != "" {
		c.endTurn(now, eventlog.EndCanceled, c.cancelCause)
		return
	}
	c.endTurn(now, eventlog.EndFailed, why)
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
