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
func (l *Loop) badArgs(now time.Time, i int, why string) {
	t := l.turn.tools
	c := t.calls[i]
	l.recordCall(now, i, c)
	t.stage[i], t.results[i] = ready, l.loopResult(c.ID, c.Name, eventlog.ToolFailed, c.Name+": "+why)
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

// requestDecision makes call i wait for a person, with the policy's
// deadline when it has one.
func (l *Loop) requestDecision(now time.Time, i int, kind eventlog.DecisionKind) {
	t := l.turn.tools
	c := t.calls[i]
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
	t.stage[i] = awaiting
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
	return nil
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
	i := t.index(d.CallID)
	if l.phase != tooling || i < 0 || t.stage[i] != awaiting {
		return fmt.Errorf("%w: call %s", signals.ErrNoSuchDecision, d.CallID)
	}
	l.recent.add(d.ID)
	ref := eventlog.Ref("")
	if d.Text != "" {
		ref = eventlog.MessageRef(d.ID)
	}
	l.record(now, ref, eventlog.DecisionMade{CallID: d.CallID, Approved: in.Verdict != Deny, Decider: d.Decider, Text: d.Text})
	l.cancelTimer(signals.DecideTimer(d.CallID))
	c := t.calls[i]
	switch in.Verdict {
	case Approve:
		l.startCall(now, i)
	case Deny:
		t.stage[i], t.results[i] = ready, l.loopResult(c.ID, c.Name, eventlog.ToolDenied,
			fmt.Sprintf("tool call denied by %s: %s", firstOf(d.Decider, "a person"), firstOf(d.Text, "no reason given")))
	case Answer:
		t.stage[i], t.results[i], t.refs[i], t.ran[i] = ready, okResult(c, d.Text), ref, true
	}
	l.runTools(now)
	return nil
}

// startAsk records an ask_human call and waits for the answer.
func (l *Loop) startAsk(now time.Time, i int) {
	var a signals.AskArgs
	c := l.turn.tools.calls[i]
	if err := json.Unmarshal(c.Arguments, &a); err != nil || strings.TrimSpace(a.Question) == "" {
		l.badArgs(now, i, `needs {"question": "..."}`)
		return
	}
	l.recordCall(now, i, c)
	l.requestDecision(now, i, eventlog.NeedAnswer)
}

// Durable waits.

// startWait sleeps a wait call on a durable timer, bounded by the policy.
func (l *Loop) startWait(now time.Time, i int) {
	t := l.turn.tools
	c := t.calls[i]
	var a signals.WaitArgs
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		l.badArgs(now, i, `needs {"seconds": N} or {"until": "RFC 3339 time"}`)
		return
	}
	d := time.Duration(a.Seconds * float64(time.Second))
	if a.Until != "" {
		until, err := time.Parse(time.RFC3339, a.Until)
		if err != nil {
			l.badArgs(now, i, "until is not an RFC 3339 time: "+a.Until)
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
		l.badArgs(now, i, "the wait is over before it began")
		return
	case d > limit:
		l.badArgs(now, i, fmt.Sprintf("%s is longer than this agent may wait (%s)", d, limit))
		return
	}
	l.recordCall(now, i, c)
	l.record(now, "", eventlog.WaitStarted{CallID: c.ID, Until: now.Add(d).UTC().Truncate(time.Millisecond)})
	t.stage[i] = running
	l.startTimer(signals.WaitTimer(c.ID), d)
}

// callTimerFired ends a wait, or decides by policy at a decision's
// deadline. A timer whose call was already answered is spent.
func (l *Loop) callTimerFired(now time.Time, in TimerFired) {
	delete(l.timers, in.ID)
	t := l.turn.tools
	kind, callID, _ := strings.Cut(in.ID, ":")
	i := t.index(callID)
	switch {
	case i < 0:
	case kind == "wait" && t.stage[i] == running:
		c := t.calls[i]
		switch {
		case t.stop != "":
			t.results[i] = l.loopResult(c.ID, c.Name, t.stop, t.stopContent())
		case in.Canceled:
			t.results[i], t.ran[i] = okResult(c, "woken early by a message at "+now.UTC().Format(time.RFC3339)), true
		default:
			t.results[i], t.ran[i] = okResult(c, "waited until "+now.UTC().Format(time.RFC3339)), true
		}
		t.stage[i] = ready
	case kind == "decide" && t.stage[i] == awaiting && !in.Canceled:
		l.decideByPolicy(now, i)
	}
	l.runTools(now)
}

// decideByPolicy decides a call whose deadline passed.
func (l *Loop) decideByPolicy(now time.Time, i int) {
	t := l.turn.tools
	c := t.calls[i]
	p := l.state.Pending[slices.IndexFunc(l.state.Pending, func(p eventlog.PendingDecision) bool { return p.CallID == c.ID })]
	pol := l.cfg.Options.Approval
	if p.Kind == eventlog.NeedAnswer {
		t.stage[i], t.results[i] = ready, l.loopResult(c.ID, c.Name, eventlog.ToolUnanswered,
			fmt.Sprintf("no answer within %s", pol.AnswerTimeout))
		return
	}
	approve := pol.OnTimeout == "approve"
	why := fmt.Sprintf("no decision within %s: %s by policy", pol.Timeout, map[bool]string{true: "approved", false: "denied"}[approve])
	l.record(now, "", eventlog.DecisionMade{CallID: c.ID, Approved: approve, Decider: "timeout", Text: why})
	if approve {
		l.startCall(now, i)
		return
	}
	t.stage[i], t.results[i] = ready, l.loopResult(c.ID, c.Name, eventlog.ToolDenied, "tool call denied: "+why)
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
