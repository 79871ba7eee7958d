package loop

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// toolRun is the open step's tool calls. Calls start by execution mode
// (startable), one call's pre hooks at a time in model order; results are
// committed in model order, each after its post hooks, whatever order the
// calls finish in.
type toolRun struct {
	calls []toolCall // in model order, never appended to: a *toolCall stays valid
	next  int        // the next result to commit
	local int        // calls started as local activities (see MaxLocalCallsPerStep)
	busy  bool       // a pre or post hook command is outstanding
	// stop, once set, starts nothing more: waiting calls get this outcome
	// and calls in flight are interrupted (a cancel, or a failed turn).
	stop eventlog.ToolOutcome
	why  string
}

// MaxCallsPerStep bounds the tool calls one step runs: with results of at
// most 64 KiB, a step stays far inside Temporal's limits on pending
// activities (2,000) and on one history, and the run may continue as new
// at the next step boundary. Calls beyond it get an error result.
const MaxCallsPerStep = 128

// MaxLocalCallsPerStep bounds the calls of one step that run as local
// activities (rules 3); the step's further calls of fast tools run as
// regular activities. A local activity's result is recorded in the workflow
// task that completes it, and one step's local calls complete in one task:
// 128 results of up to 64 KiB passed gRPC's 4 MiB message limit, and the
// server terminated the workflow. 16 keep a task under 1 MiB of results.
const MaxLocalCallsPerStep = 16

// enterTools begins the step's tool calls. A call of a tool the agent may
// not use gets an error result without running.
func (l *Loop) enterTools(now time.Time, reqs []eventlog.ToolCallRequest) {
	t := &toolRun{calls: make([]toolCall, len(reqs))}
	for i, r := range reqs {
		c := &t.calls[i]
		tool, ok := l.stepTool(r.Name)
		c.call = Call{ID: r.ID, Name: r.Name, Arguments: r.Arguments, Mode: l.mode(r.Name), Index: i}
		if ok {
			c.call.Mode, c.call.MCP = tool.Mode, tool.MCP
		}
		switch {
		case !ok:
			c.settle(eventlog.ToolUnavailable,
				fmt.Sprintf("tool %q is not available to this agent; available: %s", r.Name, l.stepToolNames()))
		case i >= MaxCallsPerStep:
			c.settle(eventlog.ToolUnavailable, fmt.Sprintf("not run: a step may make at most %d tool calls", MaxCallsPerStep))
		}
	}
	l.turn.tools = t
	l.moveTo(tooling)
	l.runTools(now)
}

// runTools is the scheduling pass made after every tool outcome: halt on
// cancel, commit what is ready, start what may start, close the step when
// every result is in.
func (l *Loop) runTools(now time.Time) {
	t := l.turn.tools
	l.haltIfCanceling()
	if t.stop != "" {
		for i := range t.calls {
			if c := &t.calls[i]; c.stage == waiting {
				c.settle(t.stop, t.stopContent())
			}
		}
	}
	if !t.busy {
		l.commitReady(now) // results first: a call that finished reads as finished before the next starts
	}
	if !t.busy && t.stop == "" {
		l.startNext(now)
	}
	if t.next == len(t.calls) && !t.busy && l.err == nil {
		l.endStep(now)
	}
}

// startNext starts the next call the scheduler allows: it records the
// call's start and runs its pre hooks.
func (l *Loop) startNext(now time.Time) {
	t := l.turn.tools
	slots := make([]slot, len(t.calls))
	for i := range t.calls {
		slots[i] = t.calls[i].slot()
	}
	mode := func(i int) signals.ToolMode { return t.calls[i].call.Mode }
	for _, i := range startable(slots, mode, l.cfg.Options.MaxParallelTools) {
		c := &t.calls[i]
		c.start()
		t.busy = true
		l.emit(RunToolPre{Call: c.call})
		return
	}
}

func (l *Loop) toolPreRan(now time.Time, in ToolPreRan) {
	t := l.turn.tools
	l.haltIfCanceling()
	c := t.find(in.CallID)
	if !l.check(c != nil && c.stage == starting && t.busy, in) {
		return
	}
	t.busy = false
	switch {
	case t.stop != "":
		c.settle(t.stop, t.stopContent())
	case in.Err != nil:
		c.settle(eventlog.ToolAbandoned, "tool call abandoned: "+in.Err.Error())
		l.failTurn(now, in.Err.Error())
		return
	case in.Denied != "":
		c.settle(eventlog.ToolDenied, "tool call denied: "+in.Denied)
	case l.orch.needsApproval(c.call):
		l.orch.requestDecision(now, c, eventlog.NeedApproval)
	default:
		l.startCall(now, c)
	}
	l.runTools(now)
}

// startCall records that call tc starts and runs it. tool/call is recorded
// here, when the call really starts, so calls behind a barrier, denied or
// canceled before starting read truthfully in the log.
func (l *Loop) startCall(now time.Time, tc *toolCall) {
	t := l.turn.tools
	c, s := tc.call, l.state
	if l.orch.startLoopTool(now, tc) {
		return
	}
	l.recordCall(now, tc)
	cmd := StartTool{
		Call:       c,
		ActivityID: signals.ToolActivityID(s.Turn, s.Step, c.Index),
		Summary:    fmt.Sprintf("tool %s turn %d step %d", c.Name, s.Turn, s.Step),
		Input: signals.ToolInput{AssistantSeq: l.turn.callsSeq, CallID: c.ID, Name: c.Name,
			IdempotencyKey: signals.IdempotencyKey(l.cfg.AgentID, s.Turn, s.Step, c.ID), MCP: c.MCP},
	}
	switch {
	case tc.edited && !(l.local[c.Name] && t.local < MaxLocalCallsPerStep):
		// Edited before approval: the assistant message in the log holds
		// the model's arguments, so the edit travels in the input (at most
		// signals.MaxDecisionBytes), which history keeps.
		cmd.Input.Arguments, cmd.Input.AssistantSeq = c.Arguments, 0
		l.carry()
	case l.local[c.Name] && t.local < MaxLocalCallsPerStep:
		// A local activity's input is not in history: its arguments travel
		// in the input and the tool/call event is journaled whole.
		cmd.Local, cmd.Input.Arguments = true, c.Arguments
		t.local++
	case len(c.Arguments) > 0 && len(c.Arguments) <= signals.MaxInlineArguments:
		// Small arguments cost less in the input than the activity's round
		// trip to the log would; larger ones are read from the log, at
		// AssistantSeq, which inline arguments need not name. None at all
		// would read as "not inline" (omitted in the input): from the log.
		cmd.Input.Arguments, cmd.Input.AssistantSeq = c.Arguments, 0
		l.carry()
	default:
		l.carry()
	}
	tc.run()
	l.emit(cmd)
}

// stepToolNames lists the step's tools for a model that called another.
func (l *Loop) stepToolNames() string {
	names := make([]string, len(l.turn.step.Tools))
	for i, t := range l.turn.step.Tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// recordCall records tool/call. An activity's input holds the event's
// fields, so its journal entry only refers to it.
func (l *Loop) recordCall(now time.Time, tc *toolCall) {
	c, s := tc.call, l.state
	e := eventlog.ToolCall{CallID: c.ID, Name: c.Name, IdempotencyKey: signals.IdempotencyKey(l.cfg.AgentID, s.Turn, s.Step, c.ID)}
	if _, ok := l.stepTool(c.Name); l.local[c.Name] || !ok || loopTool(c.Name) {
		l.record(now, "", e)
		return
	}
	l.record(now, eventlog.InputRef(signals.ToolActivityID(s.Turn, s.Step, c.Index)), e)
}

func (l *Loop) toolDone(now time.Time, in ToolDone) {
	t := l.turn.tools
	l.haltIfCanceling()
	c := t.find(in.CallID)
	if !l.check(c != nil && c.stage == running, in) {
		return
	}
	switch {
	case in.Canceled || in.Failed != "" && t.stop != "":
		c.settle(firstOutcome(t.stop, eventlog.ToolCanceled), t.stopContent())
	case in.Failed != "":
		c.answer(c.made(eventlog.ToolFailed, fmt.Sprintf("tool %s failed: %s", c.call.Name, in.Failed)), "")
	default:
		out := in.Output
		out.CallID, out.Name = c.call.ID, c.call.Name
		c.answer(out, in.Ref)
	}
	l.runTools(now)
}

// commitReady commits results in model order while the next one is ready;
// a result the tool gave passes the post hooks first (not once halted).
func (l *Loop) commitReady(now time.Time) {
	t := l.turn.tools
	for t.next < len(t.calls) && t.calls[t.next].stage == ready {
		c := &t.calls[t.next]
		if c.ran && t.stop == "" {
			t.busy = true
			l.emit(RunToolPost{Call: c.call, Result: c.result})
			return
		}
		l.commit(now, c, c.result, c.ref)
	}
}

func (l *Loop) toolPostRan(now time.Time, in ToolPostRan) {
	t := l.turn.tools
	l.haltIfCanceling()
	c := t.find(in.CallID)
	if !l.check(c != nil && c.call.Index == t.next && t.busy && c.stage == ready, in) {
		return
	}
	t.busy = false
	if in.Err != nil {
		c.settle(eventlog.ToolAbandoned, "tool call abandoned: "+in.Err.Error())
		l.failTurn(now, in.Err.Error())
		return
	}
	out, ref := in.Output, c.ref
	out.CallID, out.Name = c.call.ID, c.call.Name
	if out != c.result {
		ref = "" // a post hook changed it: the event is the hook's, journaled inline
	}
	l.commit(now, c, out, ref)
	l.runTools(now)
}

// commit records call tc's result, the next in model order.
func (l *Loop) commit(now time.Time, tc *toolCall, out signals.ToolOutput, ref eventlog.Ref) {
	l.record(now, ref, out)
	tc.commit()
	l.turn.tools.next++
	if out.ConcludesTurn {
		l.turn.last.concluded = true
	}
}

// haltIfCanceling halts the tool run once its turn is canceling: a cancel
// is a request, applied at once, and the run sees it at its next outcome.
func (l *Loop) haltIfCanceling() {
	if t, c := l.turn.tools, l.state.Canceling; c != "" && t.stop == "" {
		t.halt(l, eventlog.ToolCanceled, c)
	}
}

// halt starts nothing more. A call waiting for a person or for a child's
// answer is answered at once (the child's turn is canceled, gracefully);
// calls in flight are interrupted and report back.
func (t *toolRun) halt(l *Loop, outcome eventlog.ToolOutcome, why string) {
	t.stop, t.why = outcome, why
	inflight := false
	for i := range t.calls {
		c := &t.calls[i]
		switch {
		case c.stage == awaiting:
			c.settle(outcome, t.stopContent())
		case c.stage == running && c.child != "" && !c.detach:
			l.emit(SignalChild{ChildID: c.child, Cancel: &signals.Cancel{Cause: why, KeepInbox: true}})
			c.settle(outcome, t.stopContent())
		case c.stage == running || c.stage == starting:
			inflight = true
		}
	}
	if inflight {
		l.emit(Interrupt{})
	}
}

func (t *toolRun) stopContent() string {
	if t.stop == eventlog.ToolAbandoned {
		return "tool call abandoned: " + t.why
	}
	return "tool call canceled: " + t.why
}

// find is the first call with callID, or nil.
func (t *toolRun) find(callID string) *toolCall {
	if i := slices.IndexFunc(t.calls, func(c toolCall) bool { return c.call.ID == callID }); i >= 0 {
		return &t.calls[i]
	}
	return nil
}

// loopResult is a result the loop makes for a call the tool did not
// answer.
func loopResult(callID, name string, outcome eventlog.ToolOutcome, content string) signals.ToolOutput {
	return signals.ToolOutput{CallID: callID, Name: name, IsError: true, Content: content, Outcome: outcome}
}

func firstOutcome(a, b eventlog.ToolOutcome) eventlog.ToolOutcome {
	if a != "" {
		return a
	}
	return b
}

// check is expect for the tool phase's per-call outcomes.
func (l *Loop) check(ok bool, in Input) bool {
	if !ok {
		l.fail(l.invalid("unexpected %T", in))
	}
	return ok
}
