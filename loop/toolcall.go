package loop

import (
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// stage is where one tool call of a step stands.
type stage int

const (
	waiting   stage = iota // not started
	starting               // its pre hooks run
	awaiting               // it waits for a person (approval, or an ask_human answer)
	running                // its activity, child agent or wait is in flight
	ready                  // its result is in hand, not yet committed
	committed              // its tool/result is recorded
)

// toolCall is one tool call of the open step. It moves waiting → starting
// → (awaiting →) running → ready → committed, or to ready at any point
// before running ends with a result the loop makes; its methods are those
// transitions, so a call's fields change together or not at all.
type toolCall struct {
	call   Call // call.Index is the call's position in its toolRun
	stage  stage
	result signals.ToolOutput
	ref    eventlog.Ref // the history fact holding result, "" when the loop or a hook made it
	ran    bool         // the tool itself answered: post hooks see it
	child  string       // the child agent a spawn_agent call started
	detach bool         // ... and whether it answers once the child started
	edited bool         // a person edited its arguments before approving it
}

// edit: a person approved it with these arguments; the log at the
// assistant message holds the model's, so they travel in the call's input.
func (c *toolCall) edit(args []byte) { c.call.Arguments, c.edited = args, true }

// start: its pre hooks run.
func (c *toolCall) start() { c.stage = starting }

// await: it waits for a person.
func (c *toolCall) await() { c.stage = awaiting }

// run: its activity or wait is in flight.
func (c *toolCall) run() { c.stage = running }

// spawn: the child agent it started is in flight; a detached child
// answers the call once it started.
func (c *toolCall) spawn(child string, detach bool) {
	c.stage, c.child, c.detach = running, child, detach
}

// answer gives the call what its tool (or a person, a child, its timer)
// answered, held by the history fact ref; post hooks see it.
func (c *toolCall) answer(out signals.ToolOutput, ref eventlog.Ref) {
	c.stage, c.result, c.ref, c.ran = ready, out, ref, true
}

// settle gives the call a result the loop makes (unavailable, denied,
// canceled, abandoned, unanswered): no post hook sees it.
func (c *toolCall) settle(outcome eventlog.ToolOutcome, content string) {
	c.stage, c.result, c.ref, c.ran = ready, c.made(outcome, content), "", false
}

// commit: its tool/result is recorded.
func (c *toolCall) commit() { c.stage = committed }

// made is a result the loop makes for the call.
func (c *toolCall) made(outcome eventlog.ToolOutcome, content string) signals.ToolOutput {
	return loopResult(c.call.ID, c.call.Name, outcome, content)
}

// ok is a successful result the loop makes for one of its tools.
func (c *toolCall) ok(content string) signals.ToolOutput { return okResult(c.call, content) }

// slot is the call's stage as the scheduler sees it.
func (c *toolCall) slot() slot {
	switch c.stage {
	case starting, awaiting, running:
		return slotRunning
	case ready, committed:
		return slotDone
	}
	return slotPending
}
