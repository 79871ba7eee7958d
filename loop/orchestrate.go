package loop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// The loop's own tools and the orchestration they need: child agents,
// decisions by people, durable waits. Each waits without a worker slot or
// an activity: a child reports by signal, a person decides by update, a
// wait is a timer.

// loopTool reports whether the loop runs name itself.
func (l *Loop) loopTool(name string) bool {
	return slices.Contains(signals.LoopTools, name)
}

// okResult is a successful result the loop makes for one of its tools.
func okResult(c Call, content string) signals.ToolOutput {
	return signals.ToolOutput{CallID: c.ID, Name: c.Name, Content: content}
}

// badArgs answers a loop tool's call with arguments it cannot use.
func (l *Loop) badArgs(now time.Time, tc *toolCall, why string) {
	l.recordCall(now, tc)
	tc.settle(eventlog.ToolFailed, tc.call.Name+": "+why)
}

// Approvals and questions.

// needsApproval applies the agent's approval policy to a call.
func (l *Loop) needsApproval(c Call) bool {
	p := l.cfg.Options.Approval
	if p == nil {
		return false
	}
	if slices.Contains(p.Tools, c.Name) {
		return true
	}
	if c.MCP != nil {
		for _, t := range p.Tools {
			if g, ok := signals.ParseMCPGrant(t); ok && g.Server == c.MCP.Server && (g.Tool == "" || g.Tool == c.MCP.Tool) {
				return true
			}
		}
	}
	for _, r := range p.When {
		if r.Tool == c.Name && matches(c.Arguments, r.Path, r.Equals) {
			return true
		}
	}
	return false
}

// matches reports whether args has a value at path (object keys from the
// root, "$.a.b"), equal to want when want is set.
func matches(args json.RawMessage, path string, want json.RawMessage) bool {
	v := args
	for _, key := range strings.Split(strings.TrimPrefix(strings.TrimPrefix(path, "$"), "."), ".") {
		if key == "" {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) != nil {
			return false
		}
		next, ok := obj[key]
		if !ok {
			return false
		}
		v = next
	}
	if len(want) == 0 {
		return true
	}
	return equalJSON(v, want)
}

func equalJSON(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return false
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// requestDecision makes call tc wait for a person, with the policy's
// deadline when it has one.
func (l *Loop) requestDecision(now time.Time, tc *toolCall, kind eventlog.DecisionKind) {
	c := tc.call
	var timeout time.Duration
	if p := l.cfg.Options.Approval; p != nil {
		timeout = p.Timeout
		if kind == eventlog.NeedAnswer {
			timeout = p.AnswerTimeout
		}
	}
	e := eventlog.DecisionRequested{CallID: c.ID, Name: c.Name, Kind: kind, Since: now}
	if timeout > 0 {
		e.Deadline = now.Add(timeout).UTC().Truncate(time.Millisecond)
		l.startTimer(signals.DecideTimer(c.ID), timeout)
	}
	tc.await()
	l.record(now, "", e)
}

// CheckDecision validates a decision before it is accepted: a call of this
// open turn waits for it, of the verdict's kind, and the agent is not
// disposed.
func (l *Loop) CheckDecision(v Verdict, d signals.Decision) error {
	if l.state.Disposing {
		return signals.ErrDisposed
	}
	if err := signals.ValidateDecision(d); err != nil {
		return err
	}
	i := slices.IndexFunc(l.state.Pending, func(p eventlog.PendingDecision) bool { return p.CallID == d.CallID })
	if i < 0 {
		return fmt.Errorf("%w: call %s (already decided, or never asked)", signals.ErrNoSuchDecision, d.CallID)
	}
	want := eventlog.NeedApproval
	if v == Answer {
		want = eventlog.NeedAnswer
	}
	if k := l.state.Pending[i].Kind; k != want {
		return fmt.Errorf("%w: call %s waits for %s, not %s", signals.ErrNoSuchDecision, d.CallID, k, v)
	}
	if l.recent.seen[d.ID] {
		return fmt.Errorf("%w: %s", signals.ErrDuplicateID, d.ID)
	}
	if d.Args != "" {
		return l.checkEdit(v, d)
	}
	return nil
}

// checkEdit refuses edited arguments the loop can tell are not allowed: on
// anything but an approval, in a run whose rules predate edits, or on a
// call the approval policy lets no one edit. Whether the tool's schema
// accepts them is the shell's to check (WaitingCall): the loop knows no
// schemas.
func (l *Loop) checkEdit(v Verdict, d signals.Decision) error {
	c := l.waiting(d.CallID)
	switch {
	case v != Approve:
		return fmt.Errorf("%w: only an approval carries arguments, not a %s", signals.ErrInvalidEdit, v)
	case l.cfg.Rules < Rules5:
		return fmt.Errorf("%w: this run follows loop rules %d, which approve a call only as made (edits need rules %d, from the agent's next run)",
			signals.ErrInvalidEdit, l.cfg.Rules, Rules5)
	case c == nil:
		return fmt.Errorf("%w: call %s", signals.ErrNoSuchDecision, d.CallID)
	}
	var server, tool string
	if c.call.MCP != nil {
		server, tool = c.call.MCP.Server, c.call.MCP.Tool
	}
	if !l.cfg.Options.Approval.EditsAllowed(c.call.Name, server, tool) {
		return fmt.Errorf("%w: the approval policy lets no one edit calls of %s; approve or deny it as made", signals.ErrInvalidEdit, c.call.Name)
	}
	return nil
}

// waiting is the call of the open step that waits for a person, or nil.
func (l *Loop) waiting(callID string) *toolCall {
	if t := l.turn.tools; l.phase == tooling && t != nil {
		if c := t.find(callID); c != nil && c.stage == awaiting {
			return c
		}
	}
	return nil
}

// WaitingCall is the call callID of the open step while it waits for a
// person, and, for an MCP tool, the input schema its server listed: what
// the shell checks an approval's edited arguments against.
func (l *Loop) WaitingCall(callID string) (Call, json.RawMessage, bool) {
	c := l.waiting(callID)
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

// decide records a person's decision and goes on with the call: approved,
// it starts; denied, the model reads the reason; answered, the answer is
// its result.
func (l *Loop) decide(now time.Time, in Decide) error {
	if err := l.CheckDecision(in.Verdict, in.Decision); err != nil {
		return err
	}
	t := l.turn.tools
	d := in.Decision
	c := t.find(d.CallID)
	if l.phase != tooling || c == nil || c.stage != awaiting {
		return fmt.Errorf("%w: call %s", signals.ErrNoSuchDecision, d.CallID)
	}
	l.recent.add(d.ID)
	ref := eventlog.Ref("")
	if d.Text != "" {
		ref = eventlog.MessageRef(d.ID)
	}
	made := eventlog.DecisionMade{CallID: d.CallID, Approved: in.Verdict != Deny, Decider: d.Decider, Text: d.Text}
	if d.Args != "" {
		made.Args, made.Original = d.Args, eventlog.JSON(c.call.Arguments)
		c.edit([]byte(d.Args))
	}
	l.record(now, ref, made)
	l.cancelTimer(signals.DecideTimer(d.CallID))
	switch in.Verdict {
	case Approve:
		l.startCall(now, c)
	case Deny:
		c.settle(eventlog.ToolDenied,
			fmt.Sprintf("tool call denied by %s: %s", firstOf(d.Decider, "a person"), firstOf(d.Text, "no reason given")))
	case Answer:
		c.answer(c.ok(d.Text), ref)
	}
	l.runTools(now)
	return nil
}

// startAsk records an ask_human call and waits for the answer.
func (l *Loop) startAsk(now time.Time, tc *toolCall) {
	var a signals.AskArgs
	if err := json.Unmarshal(tc.call.Arguments, &a); err != nil || strings.TrimSpace(a.Question) == "" {
		l.badArgs(now, tc, `needs {"question": "..."}`)
		return
	}
	l.recordCall(now, tc)
	l.requestDecision(now, tc, eventlog.NeedAnswer)
}

// Durable waits.

// startWait sleeps a wait call on a durable timer, bounded by the policy.
func (l *Loop) startWait(now time.Time, tc *toolCall) {
	c := tc.call
	var a signals.WaitArgs
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		l.badArgs(now, tc, `needs {"seconds": N} or {"until": "RFC 3339 time"}`)
		return
	}
	d := time.Duration(a.Seconds * float64(time.Second))
	if a.Until != "" {
		until, err := time.Parse(time.RFC3339, a.Until)
		if err != nil {
			l.badArgs(now, tc, "until is not an RFC 3339 time: "+a.Until)
			return
		}
		d = until.Sub(now)
	}
	limit := signals.DefaultMaxWait
	if p := l.cfg.Options.Wait; p != nil && p.Max > 0 {
		limit = p.Max
	}
	switch {
	case d <= 0:
		l.badArgs(now, tc, "the wait is over before it began")
		return
	case d > limit:
		l.badArgs(now, tc, fmt.Sprintf("%s is longer than this agent may wait (%s)", d, limit))
		return
	}
	l.recordCall(now, tc)
	l.record(now, "", eventlog.WaitStarted{CallID: c.ID, Until: now.Add(d).UTC().Truncate(time.Millisecond)})
	tc.run()
	l.startTimer(signals.WaitTimer(c.ID), d)
}

// callTimerFired ends a wait, or decides by policy at a decision's
// deadline. A timer whose call was already answered is spent.
func (l *Loop) callTimerFired(now time.Time, in TimerFired) {
	delete(l.timers, in.ID)
	t := l.turn.tools
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
		l.decideByPolicy(now, c)
	}
	l.runTools(now)
}

// decideByPolicy decides a call whose deadline passed.
func (l *Loop) decideByPolicy(now time.Time, tc *toolCall) {
	c := tc.call
	p := l.state.Pending[slices.IndexFunc(l.state.Pending, func(p eventlog.PendingDecision) bool { return p.CallID == c.ID })]
	pol := l.cfg.Options.Approval
	if p.Kind == eventlog.NeedAnswer {
		tc.settle(eventlog.ToolUnanswered, fmt.Sprintf("no answer within %s", pol.AnswerTimeout))
		return
	}
	approve := pol.OnTimeout == "approve"
	why := fmt.Sprintf("no decision within %s: %s by policy", pol.Timeout, map[bool]string{true: "approved", false: "denied"}[approve])
	l.record(now, "", eventlog.DecisionMade{CallID: c.ID, Approved: approve, Decider: "timeout", Text: why})
	if approve {
		l.startCall(now, tc)
		return
	}
	tc.settle(eventlog.ToolDenied, "tool call denied: "+why)
}

// Timers the turn runs besides the backoff: the loop keeps their IDs so a
// timer that fires after its call was answered is recognised as spent.

func (l *Loop) startTimer(id string, d time.Duration) {
	if l.timers == nil {
		l.timers = map[string]bool{}
	}
	l.timers[id] = true
	l.emit(StartTimer{ID: id, After: d})
}

func (l *Loop) cancelTimer(id string) {
	if l.timers[id] {
		l.emit(CancelTimer{ID: id})
	}
}
