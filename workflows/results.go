package workflows

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

// ModelDone records the outcome of the step's model call; failure is nil on
// success. A failed call records an assistant attempt and closes its step;
// request-error then decides (unless the turn is being canceled).
func (c *Core) ModelDone(now time.Time, cmd CallModel, out signals.ModelOutput, failure *eventlog.Failure) {
	if c.phase != phaseModel {
		c.err = fmt.Errorf("%w: model result in phase %d", eventlog.ErrInvalidTransition, c.phase)
		return
	}
	if failure != nil {
		c.record(now, "", eventlog.AssistantAttempt{Failure: *failure, Provider: c.call.Provider, Model: c.call.Model})
		c.record(now, "", eventlog.StepEnd{Turn: c.state.Turn, Step: c.state.Step})
		c.last.failed = fmt.Sprintf("model call failed (%s): %s", failure.Kind, failure.Message)
		c.failure = *failure
		c.phase = phaseRecover
		if c.cancelCause != "" {
			c.phase = phaseProposal
		}
		return
	}
	c.callsSeq = c.state.Len
	c.record(now, eventlog.ActivityRef(cmd.ActivityID), out)
	c.calls = out.ToolCalls
	c.phase = phaseStepDone
	if len(c.calls) > 0 {
		c.last.toolCalls = true
		c.phase = phaseTools
	}
}

// Recovered applies request-error's action: retry closes the failed turn and
// opens a retry turn over the same state; anything else is terminal.
func (c *Core) Recovered(now time.Time, a hook.Action, err error) {
	switch {
	case c.cancelCause != "":
		c.phase = phaseProposal
	case err != nil:
		c.last.failed += "; request-error hook failed: " + err.Error()
		c.phase = phaseProposal
	case a.Retry:
		c.retry(now)
	default:
		c.phase = phaseProposal
	}
}

// RetryChain counts the retry turns since the chain's first turn.
func (c *Core) RetryChain() int { return c.retries }

// runTools starts the step's tool calls. A canceled turn does not start
// them: each gets a canceled result instead, so the conversation stays valid.
func (c *Core) runTools(now time.Time) Command {
	if c.cancelCause != "" {
		for len(c.state.OpenCalls) > 0 && c.err == nil {
			c.ToolDone(now, c.cancelResult(c.state.OpenCalls[0]), "")
		}
		return nil
	}
	invs := make([]ToolInvocation, 0, len(c.calls))
	for i, call := range c.calls {
		invs = append(invs, c.invocation(now, i, call))
	}
	for i := range invs {
		if invs[i].Immediate == nil && !invs[i].Local { // the first activity carries the journal
			invs[i].Input.Journal = c.TakeJournal()
			break
		}
	}
	return RunTools{Calls: invs, Bound: c.opts.MaxParallelTools}
}

func (c *Core) invocation(now time.Time, i int, call eventlog.ToolCallRequest) ToolInvocation {
	s := c.state
	key := fmt.Sprintf("%s/%d/%d/%s", c.agentID, s.Turn, s.Step, call.ID)
	event := eventlog.ToolCall{CallID: call.ID, Name: call.Name, IdempotencyKey: key}
	hc := hook.Call{ID: call.ID, Name: call.Name, Arguments: call.Arguments, Mode: c.mode(call.Name)}
	if !slices.Contains(c.opts.Tools, call.Name) {
		c.record(now, "", event)
		return ToolInvocation{Call: hc, Immediate: &signals.ToolOutput{
			CallID: call.ID, Name: call.Name, IsError: true,
			Content: fmt.Sprintf("tool %q is not available to this agent; available: %s", call.Name, strings.Join(c.opts.Tools, ", ")),
		}}
	}
	id := fmt.Sprintf("tool-%d-%d-%d", s.Turn, s.Step, i)
	inv := ToolInvocation{
		Call:       hc,
		ActivityID: id,
		Summary:    fmt.Sprintf("tool %s turn %d step %d", call.Name, s.Turn, s.Step),
		Input:      signals.ToolInput{AssistantSeq: c.callsSeq, CallID: call.ID, Name: call.Name, IdempotencyKey: key},
	}
	if c.local[call.Name] {
		// A local activity's input is not in history: the event is
		// journaled whole and the arguments travel in the input.
		c.record(now, "", event)
		inv.Local, inv.Input.Arguments = true, call.Arguments
		return inv
	}
	c.record(now, eventlog.InputRef(id), event) // the activity input holds its fields
	return inv
}

// SetLocalTools names the tools that run as local activities.
func (c *Core) SetLocalTools(names []string) {
	c.local = map[string]bool{}
	for _, n := range names {
		c.local[n] = true
	}
}

// ToolDone commits the result of the next open tool call in model order.
// ref names the activity result that holds the event's content (an
// ActivityRef or a LocalRef); it is empty for a result the loop or a hook
// made, whose content is journaled inline.
func (c *Core) ToolDone(now time.Time, res signals.ToolOutput, ref eventlog.Ref) {
	open := c.state.OpenCalls
	if c.phase != phaseTools || len(open) == 0 || open[0].ID != res.CallID {
		c.err = fmt.Errorf("%w: tool result %q out of order", eventlog.ErrInvalidTransition, res.CallID)
		return
	}
	c.record(now, ref, res)
	if res.ConcludesTurn {
		c.last.concluded = true
	}
	if len(c.state.OpenCalls) == 0 {
		c.phase = phaseStepDone
	}
}

// ToolsFailed fails the turn when a tool hook failed.
func (c *Core) ToolsFailed(now time.Time, err error) { c.failTurn(now, err.Error()) }

// endStep closes the step and disposes its tool set.
func (c *Core) endStep(now time.Time) {
	c.record(now, "", eventlog.StepEnd{Turn: c.state.Turn, Step: c.state.Step})
	c.step.Tools, c.calls = nil, nil
	c.phase = phaseProposal
}

// cancelResult is the result a dangling call gets when its turn is canceled.
func (c *Core) cancelResult(call eventlog.ToolCallRequest) signals.ToolOutput {
	return signals.ToolOutput{
		CallID: call.ID, Name: call.Name, IsError: true,
		Content: fmt.Sprintf("tool call canceled: %s", c.cancelCause),
	}
}

// CancelResult is the result for a dangling call of the open step.
func (c *Core) CancelResult(callID string) signals.ToolOutput {
	for _, call := range c.state.OpenCalls {
		if call.ID == callID {
			return c.cancelResult(call)
		}
	}
	return signals.ToolOutput{CallID: callID, IsError: true, Content: "tool call canceled"}
}

// FailedResult is the result a call gets when its activity failed for good.
func FailedResult(call signals.ToolInput, err error) signals.ToolOutput {
	return signals.ToolOutput{
		CallID: call.CallID, Name: call.Name, IsError: true,
		Content: fmt.Sprintf("tool %s failed: %v", call.Name, err),
	}
}

// Canceling reports whether the open turn is being canceled.
func (c *Core) Canceling() bool { return c.cancelCause != "" }
