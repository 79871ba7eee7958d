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

// Decisions by people and durable waits: the orchestrator's calls that
// wait for a person (approval, ask_human) or on a timer (wait).

// okResult is a successful result the loop makes for one of its tools.
func okResult(c Call, content string) signals.ToolOutput {
	return signals.ToolOutput{CallID: c.ID, Name: c.Name, Content: content}
}

// Approvals and questions.

// needsApproval applies the agent's approval policy to a call.
func (o *orchestrator) needsApproval(c Call) bool {
	p := o.cfg.Options.Approval
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
func (o *orchestrator) requestDecision(now time.Time, tc *toolCall, kind eventlog.DecisionKind) {
	c := tc.call
	var timeout time.Duration
	if p := o.cfg.Options.Approval; p != nil {
		timeout = p.Timeout
		if kind == eventlog.NeedAnswer {
			timeout = p.AnswerTimeout
		}
	}
	e := eventlog.DecisionRequested{CallID: c.ID, Name: c.Name, Kind: kind, Since: now}
	if timeout > 0 {
		e.Deadline = now.Add(timeout).UTC().Truncate(time.Millisecond)
		o.startTimer(signals.DecideTimer(c.ID), timeout)
	}
	tc.await()
	o.host.record(now, "", e)
}

// checkDecision is Loop.CheckDecision.
func (o *orchestrator) checkDecision(v Verdict, d signals.Decision) error {
	if o.state.Disposing {
		return signals.ErrDisposed
	}
	if err := signals.ValidateDecision(d); err != nil {
		return err
	}
	i := slices.IndexFunc(o.state.Pending, func(p eventlog.PendingDecision) bool { return p.CallID == d.CallID })
	if i < 0 {
		return fmt.Errorf("%w: call %s (already decided, or never asked)", signals.ErrNoSuchDecision, d.CallID)
	}
	want := eventlog.NeedApproval
	if v == Answer {
		want = eventlog.NeedAnswer
	}
	if k := o.state.Pending[i].Kind; k != want {
		return fmt.Errorf("%w: call %s waits for %s, not %s", signals.ErrNoSuchDecision, d.CallID, k, v)
	}
	if o.waiting(d.CallID) == nil {
		// Listed until the next Resume commits it, but a cancel already
		// answered it: refused here, as decide would, so the shell's
		// validator and the loop agree and nothing is accepted in vain.
		return fmt.Errorf("%w: call %s (its turn is being canceled)", signals.ErrNoSuchDecision, d.CallID)
	}
	if o.recent.seen[d.ID] {
		return fmt.Errorf("%w: %s", signals.ErrDuplicateID, d.ID)
	}
	if d.Args != "" {
		return o.checkEdit(v, d)
	}
	return nil
}

// checkEdit refuses edited arguments the loop can tell are not allowed: on
// anything but an approval, in a run whose rules predate edits, or on a
// call the approval policy lets no one edit. Whether the tool's schema
// accepts them is the shell's to check (WaitingCall): the loop knows no
// schemas.
func (o *orchestrator) checkEdit(v Verdict, d signals.Decision) error {
	c := o.waiting(d.CallID)
	switch {
	case v != Approve:
		return fmt.Errorf("%w: only an approval carries arguments, not a %s", signals.ErrInvalidEdit, v)
	case o.cfg.Rules < Rules5:
		return fmt.Errorf("%w: this run follows loop rules %d, which approve a call only as made (edits need rules %d, from the agent's next run)",
			signals.ErrInvalidEdit, o.cfg.Rules, Rules5)
	case c == nil:
		return fmt.Errorf("%w: call %s", signals.ErrNoSuchDecision, d.CallID)
	}
	var server, tool string
	if c.call.MCP != nil {
		server, tool = c.call.MCP.Server, c.call.MCP.Tool
	}
	if !o.cfg.Options.Approval.EditsAllowed(c.call.Name, server, tool) {
		return fmt.Errorf("%w: the approval policy lets no one edit calls of %s; approve or deny it as made", signals.ErrInvalidEdit, c.call.Name)
	}
	return nil
}

// waiting is the call of the open step that waits for a person, or nil.
func (o *orchestrator) waiting(callID string) *toolCall {
	if t := o.host.calls(); t != nil {
		if c := t.find(callID); c != nil && c.stage == awaiting {
			return c
		}
	}
	return nil
}

// decide records a person's decision and goes on with the call: approved,
// it starts; denied, the model reads the reason; answered, the answer is
// its result.
func (o *orchestrator) decide(now time.Time, in Decide) error {
	if err := o.checkDecision(in.Verdict, in.Decision); err != nil {
		return err
	}
	d := in.Decision
	c := o.waiting(d.CallID)
	if c == nil {
		return fmt.Errorf("%w: call %s", signals.ErrNoSuchDecision, d.CallID)
	}
	o.recent.add(d.ID)
	ref := eventlog.Ref("")
	if d.Text != "" {
		ref = eventlog.MessageRef(d.ID)
	}
	made := eventlog.DecisionMade{CallID: d.CallID, Approved: in.Verdict != Deny, Decider: d.Decider, Text: d.Text}
	if d.Args != "" {
		made.Args, made.Original = d.Args, eventlog.JSON(c.call.Arguments)
		c.edit([]byte(d.Args))
	}
	o.host.record(now, ref, made)
	o.cancelTimer(signals.DecideTimer(d.CallID))
	switch in.Verdict {
	case Approve:
		o.host.startCall(now, c)
	case Deny:
		c.settle(eventlog.ToolDenied,
			fmt.Sprintf("tool call denied by %s: %s", firstOf(d.Decider, "a person"), firstOf(d.Text, "no reason given")))
	case Answer:
		c.answer(c.ok(d.Text), ref)
	}
	o.host.runTools(now)
	return nil
}

// startAsk records an ask_human call and waits for the answer.
func (o *orchestrator) startAsk(now time.Time, tc *toolCall) {
	var a signals.AskArgs
	if err := json.Unmarshal(tc.call.Arguments, &a); err != nil || strings.TrimSpace(a.Question) == "" {
		o.badArgs(now, tc, `needs {"question": "..."}`)
		return
	}
	o.host.recordCall(now, tc)
	o.requestDecision(now, tc, eventlog.NeedAnswer)
}

// Durable waits.

// startWait sleeps a wait call on a durable timer, bounded by the policy.
func (o *orchestrator) startWait(now time.Time, tc *toolCall) {
	c := tc.call
	var a signals.WaitArgs
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		o.badArgs(now, tc, `needs {"seconds": N} or {"until": "RFC 3339 time"}`)
		return
	}
	d := time.Duration(a.Seconds * float64(time.Second))
	if a.Until != "" {
		until, err := time.Parse(time.RFC3339, a.Until)
		if err != nil {
			o.badArgs(now, tc, "until is not an RFC 3339 time: "+a.Until)
			return
		}
		d = until.Sub(now)
	}
	limit := signals.DefaultMaxWait
	if p := o.cfg.Options.Wait; p != nil && p.Max > 0 {
		limit = p.Max
	}
	switch {
	case d <= 0:
		o.badArgs(now, tc, "the wait is over before it began")
		return
	case d > limit:
		o.badArgs(now, tc, fmt.Sprintf("%s is longer than this agent may wait (%s)", d, limit))
		return
	}
	o.host.recordCall(now, tc)
	o.host.record(now, "", eventlog.WaitStarted{CallID: c.ID, Until: now.Add(d).UTC().Truncate(time.Millisecond)})
	tc.run()
	o.startTimer(signals.WaitTimer(c.ID), d)
}

// decideByPolicy decides a call whose deadline passed.
func (o *orchestrator) decideByPolicy(now time.Time, tc *toolCall) {
	c := tc.call
	p := o.state.Pending[slices.IndexFunc(o.state.Pending, func(p eventlog.PendingDecision) bool { return p.CallID == c.ID })]
	pol := o.cfg.Options.Approval
	if p.Kind == eventlog.NeedAnswer {
		tc.settle(eventlog.ToolUnanswered, fmt.Sprintf("no answer within %s", pol.AnswerTimeout))
		return
	}
	approve := pol.OnTimeout == "approve"
	why := fmt.Sprintf("no decision within %s: %s by policy", pol.Timeout, map[bool]string{true: "approved", false: "denied"}[approve])
	o.host.record(now, "", eventlog.DecisionMade{CallID: c.ID, Approved: approve, Decider: "timeout", Text: why})
	if approve {
		o.host.startCall(now, tc)
		return
	}
	tc.settle(eventlog.ToolDenied, "tool call denied: "+why)
}

// wakeWaits ends the running wait tool calls early when the agent's policy
// lets a wakeful message interrupt them.
func (o *orchestrator) wakeWaits() {
	if p := o.cfg.Options.Wait; p == nil || !p.Interruptible {
		return
	}
	for _, w := range o.state.Waits {
		o.host.emit(CancelTimer{ID: signals.WaitTimer(w.CallID)})
	}
}
