package loop

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// orchestrator is the loop's orchestration as a machine of its own: child
// agents (children.go), decisions by people and durable waits
// (orchestrate.go), and the timers of those calls. Each waits without a
// worker slot or an activity: a child reports by signal, a person decides
// by update, a wait is a timer.
//
// Its inputs are its methods: the orchestration inputs of Step (step), a
// decision or wait timer (timerFired), the start of one of the loop's own
// tool calls (startLoopTool), a call's approval after its pre hooks
// (needsApproval, requestDecision), a wakeful message (wakeWaits) and the
// end of the agent (disposeChildren). It reads the run's Config and the
// loop's fold and shares the loop's dedupe window; everything it does goes
// out through orchHost, in the order it does it: events it records,
// commands it emits, and the open step's calls it answers or starts.
type orchestrator struct {
	cfg    *Config         // the run's, read only
	state  *eventlog.State // the loop's fold, read only: it changes by host.record
	recent *ids            // the loop's dedupe window, shared with the inbox
	host   orchHost
	// timers are the decision and wait timers started and not yet fired.
	timers map[string]bool
}

// orchHost is what orchestration needs from the loop; the Loop is its
// only implementation. Every call happens inside one Step, on the loop's
// goroutine.
type orchHost interface {
	// record appends an event to the log and folds it.
	record(now time.Time, ref eventlog.Ref, e eventlog.Event)
	// emit makes a command due in this Step's Ready.
	emit(c Command)
	// calls is the open step's tool calls while the loop runs them, else
	// nil. A call orchestration answers or settles (toolCall's
	// transitions) is committed by the next runTools.
	calls() *toolRun
	// recordCall records tool/call for one of the loop's own calls;
	// startCall starts an approved call as if no approval were asked.
	recordCall(now time.Time, tc *toolCall)
	startCall(now time.Time, tc *toolCall)
	// runTools is the tool run's scheduling pass, after a call changed.
	runTools(now time.Time)
}

func newOrchestrator(l *Loop) orchestrator {
	return orchestrator{cfg: &l.cfg, state: &l.state, recent: &l.recent, host: l}
}

// calls is the open step's tool calls while the loop runs them.
func (l *Loop) calls() *toolRun {
	if l.phase != tooling {
		return nil
	}
	return l.turn.tools
}

// CheckDecision validates a decision before it is accepted: a call of this
// open turn waits for it, of the verdict's kind, and the agent is not
// disposed.
func (l *Loop) CheckDecision(v Verdict, d signals.Decision) error { return l.orch.checkDecision(v, d) }

// WaitingCall is the call callID of the open step while it waits for a
// person, and, for an MCP tool, the input schema its server listed: what
// the shell checks an approval's edited arguments against.
func (l *Loop) WaitingCall(callID string) (Call, json.RawMessage, bool) {
	c := l.orch.waiting(callID)
	if c == nil {
		return Call{}, nil, false
	}
	var schema json.RawMessage
	if g := c.call.MCP; g != nil {
		for _, t := range l.mcp.listings[g.Server].Tools {
			if t.Name == g.Tool {
				schema = t.InputSchema
			}
		}
	}
	return c.call, schema, true
}

// step applies an orchestration input; handled is false for any other
// input. A refused request (a spawn, a decision) changed nothing.
func (o *orchestrator) step(now time.Time, in Input) (handled bool, refused error) {
	switch in := in.(type) {
	case SpawnChild:
		return true, o.spawnDetached(now, in.Spawn)
	case Decide:
		return true, o.decide(now, in)
	case ChildStart:
		o.childStarted(now, in)
	case ChildReport:
		o.childReported(now, in.Report)
	case ChildClosed:
		o.childEnded(now, in.ChildID, in.Status, in.Spent)
	case ParentGone:
		o.parentGone(now)
	default:
		return false, nil
	}
	return true, nil
}

// startLoopTool starts call tc when it is one of the loop's own tools
// (spawn_agent, ask_human, wait), and reports whether it was.
func (o *orchestrator) startLoopTool(now time.Time, tc *toolCall) bool {
	switch tc.call.Name {
	case signals.SpawnTool:
		o.startSpawn(now, tc)
	case signals.AskHumanTool:
		o.startAsk(now, tc)
	case signals.WaitTool:
		o.startWait(now, tc)
	default:
		return false
	}
	return true
}

// loopTool reports whether the loop runs name itself.
func loopTool(name string) bool {
	return slices.Contains(signals.LoopTools, name)
}

// badArgs answers a loop tool's call with arguments it cannot use.
func (o *orchestrator) badArgs(now time.Time, tc *toolCall, why string) {
	o.host.recordCall(now, tc)
	tc.settle(eventlog.ToolFailed, tc.call.Name+": "+why)
}

// Timers the turn runs besides the backoff: the orchestrator keeps their
// IDs so a timer that fires after its call was answered is recognised as
// spent.

func (o *orchestrator) startTimer(id string, d time.Duration) {
	if o.timers == nil {
		o.timers = map[string]bool{}
	}
	o.timers[id] = true
	o.host.emit(StartTimer{ID: id, After: d})
}

func (o *orchestrator) cancelTimer(id string) {
	if o.timers[id] {
		o.host.emit(CancelTimer{ID: id})
	}
}

// timerFired applies a decision or wait timer; known is false for a timer
// it never started, which the loop fails on. One that fires while no step
// runs tools was canceled with its turn and is spent.
func (o *orchestrator) timerFired(now time.Time, in TimerFired) (known bool) {
	if !o.timers[in.ID] {
		return false
	}
	delete(o.timers, in.ID)
	t := o.host.calls()
	if t == nil {
		return true
	}
	kind, callID, _ := strings.Cut(in.ID, ":")
	c := t.find(callID)
	switch {
	case c == nil:
	case kind == "wait" && c.stage == running:
		switch {
		case t.stop != "":
			c.settle(t.stop, t.stopContent())
		case in.Canceled:
			c.answer(c.ok("woken early by a message at "+now.UTC().Format(time.RFC3339)), "")
		default:
			c.answer(c.ok("waited until "+now.UTC().Format(time.RFC3339)), "")
		}
	case kind == "decide" && c.stage == awaiting && !in.Canceled:
		o.decideByPolicy(now, c)
	}
	o.host.runTools(now)
	return true
}
