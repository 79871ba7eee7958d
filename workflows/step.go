package workflows

import (
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

// claim atomically removes the pending next-step input (plus one next-turn
// message when withPrompt) as the batch of the proposed step.
func (c *Core) claim(now time.Time, withPrompt bool) {
	batch := append([]eventlog.Pending(nil), c.state.Inbox.NextStep...)
	for _, p := range batch {
		c.record(now, "", eventlog.InboxClaimed{MessageID: p.ID, List: eventlog.NextStep, Turn: c.state.Turn})
	}
	if next := c.state.Inbox.NextTurn; withPrompt && len(next) > 0 {
		p := next[0]
		c.record(now, "", eventlog.InboxClaimed{MessageID: p.ID, List: eventlog.NextTurn, Turn: c.state.Turn})
		batch = append(batch, p)
	}
	c.batch = batch
	c.step = hook.Step{Turn: c.state.Turn, Step: c.state.Step + 1}
}

func batchMessages(batch []eventlog.Pending) []hook.Message {
	out := make([]hook.Message, len(batch))
	for i, p := range batch {
		out[i] = hook.Message{ID: p.ID, Content: p.Content}
	}
	return out
}

// HooksDone reports a serial hook point. text is the runtime-context
// snapshot for PointRuntimeContext. An error fails the turn.
func (c *Core) HooksDone(now time.Time, p Point, text string, err error) {
	if err != nil {
		c.failTurn(now, err.Error())
		return
	}
	switch p {
	case PointStepBoundary:
		if c.pending != nil { // commit the switch requested for this step
			c.selection, c.pending = *c.pending, nil
		}
		c.phase = phaseChoose
	case PointRuntimeContext:
		if text != c.state.RuntimeContext {
			c.record(now, "", eventlog.RuntimeContext{Content: text})
		}
		c.phase = phaseRequest
	case PointTurnStopping:
		c.stopped(now)
	}
}

// ModelChosen publishes the step's selection.
func (c *Core) ModelChosen(now time.Time, s signals.Selection, err error) {
	if err != nil {
		c.failTurn(now, err.Error())
		return
	}
	c.step.Selection = s
	c.step.Tools = c.toolSet()
	c.phase = phasePreStep
}

// toolSet resolves the step's tools once: the agent's enabled tools with
// the worker's modes. It is disposed when the step ends.
func (c *Core) toolSet() []hook.Tool {
	out := make([]hook.Tool, 0, len(c.opts.Tools))
	for _, name := range c.opts.Tools {
		out = append(out, hook.Tool{Name: name, Mode: c.mode(name)})
	}
	return out
}

func (c *Core) mode(name string) signals.ToolMode {
	if m, ok := c.modes[name]; ok && m != "" {
		return m
	}
	return signals.ToolParallel
}

// PreStepDone applies pre-step's authoritative decision: reject closes the
// turn as blocked without spending a step; enter opens the step and admits
// the decided messages.
func (c *Core) PreStepDone(now time.Time, d hook.Decision, err error) {
	switch {
	case err != nil:
		c.failTurn(now, err.Error())
	case d.Reject:
		c.endTurn(now, eventlog.EndBlocked, firstOf(d.Reason, "rejected by pre-step"))
	default:
		c.startStep(now, d.Messages)
	}
}

// startStep opens the step, records the system prompt when its assembly
// changed, then each entered message.
func (c *Core) startStep(now time.Time, msgs []hook.Message) {
	sel := c.step.Selection
	c.record(now, "", eventlog.StepStart{Turn: c.step.Turn, Step: c.step.Step, Provider: sel.Provider, Model: sel.Model})
	if prompt, ref := c.assemble(); prompt != c.state.SystemPrompt {
		c.record(now, ref, eventlog.SystemMessage{Content: prompt})
	}
	for _, m := range msgs {
		if m.ID == "" {
			c.made++
			m.ID = eventlog.MessageID(fmt.Sprintf("made:%d.%d", c.state.Turn, c.made))
			c.inline[m.ID] = true
		}
		ref := c.msgRef(m.ID)
		if !c.claimed(m) { // a hook rewrote it: its content is new
			ref = ""
		}
		c.record(now, ref, eventlog.UserMessage{MessageID: m.ID, Content: m.Content})
	}
	c.last, c.batch = stepOutcome{}, nil
	c.phase = phaseContext
}

// claimed reports whether m is a message of the batch, unchanged.
func (c *Core) claimed(m hook.Message) bool {
	for _, p := range c.batch {
		if p.ID == m.ID {
			return p.Content == m.Content
		}
	}
	return false
}

// defaultCall is the call configuration request hooks start from.
func (c *Core) defaultCall() signals.CallConfig {
	s := c.step.Selection
	names := make([]string, len(c.step.Tools))
	for i, t := range c.step.Tools {
		names[i] = t.Name
	}
	return signals.CallConfig{
		Provider: s.Provider, Model: s.Model, Effort: s.Effort, MaxTokens: c.opts.MaxTokens,
		Tools: names, Turn: c.step.Turn, Step: c.step.Step,
	}
}

// RequestShaped freezes the call configuration. Turn and step are the
// loop's; a hook cannot move the call to another step.
func (c *Core) RequestShaped(now time.Time, cfg signals.CallConfig, err error) {
	if err != nil {
		c.failTurn(now, err.Error())
		return
	}
	cfg.Turn, cfg.Step = c.step.Turn, c.step.Step
	c.call = cfg
	c.phase = phaseModel
}

func (c *Core) callModel() CallModel {
	s := c.state
	what := "model"
	if c.call.Model != "" {
		what += " " + c.call.Model
	}
	return CallModel{
		ActivityID: fmt.Sprintf("model-%d-%d", s.Turn, s.Step),
		Summary:    fmt.Sprintf("%s turn %d step %d", what, s.Turn, s.Step),
		Input:      signals.ModelInput{Ref: signals.LogRef{Upto: s.Len}, Call: c.call, Journal: c.TakeJournal()},
	}
}
