package loop

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Issue 19: random sequences over the loop's whole input set, played by a
// fake shell (propshell_test.go), against invariants stated once here.
// rapid shrinks a failing sequence to a minimal one; each such sequence
// found so far is a case of TestPropertyFindings. `make test` runs the
// default 100 sequences; `make fuzz` runs more.

// Invariants. Each returns why it does not hold, or nil.

// loopNeverFails is invariant 1: whatever a client sends and whatever its
// commands come to, the loop never fails (no Fail command, Err nil). A
// request it refuses comes back as Ready.Err and records nothing.
func loopNeverFails(s *pshell) error {
	if s.failed != nil {
		return s.failed
	}
	return s.l.Err()
}

// deliveredAtMostOnce is invariant 2: every accepted message is claimed
// (delivered to the model) at most once over the whole chain of runs,
// resends of its ID included. An ID is a duplicate while pending or
// scheduled, and for MaxRecentIDs accepted IDs after; accepted again past
// that, it is a new message (see accepted).
func deliveredAtMostOnce(s *pshell) error {
	ids := make([]eventlog.MessageID, 0, len(s.claims))
	for id, n := range s.claims {
		if n > 1 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	return fmt.Errorf("message %s was claimed %d times", ids[0], s.claims[ids[0]])
}

// logFoldsToState is invariant 3: folding every envelope the loop recorded,
// decoded from its JSON, from an empty state (eventlog.NewState(0), then
// Apply in seq order, across Continue-As-New) gives the state the loop
// holds.
func logFoldsToState(s *pshell) error {
	if s.foldErr != nil {
		return s.foldErr
	}
	return sameState(s.fold, s.l.State())
}

func sameState(folded, held eventlog.State) error {
	a, err := json.Marshal(folded)
	if err != nil {
		return err
	}
	b, err := json.Marshal(held)
	if err != nil {
		return err
	}
	if string(a) != string(b) {
		return fmt.Errorf("the log folds to\n%s\nbut the loop holds\n%s", a, b)
	}
	return nil
}

// spendWithinBudget is invariant 4, the budget rule of children.go and
// overBudget: before every model call the root's known spend (its own
// calls plus what its children reported) plus what its live children hold
// in reserve (their budget less what they reported) is below its budget,
// and a child never gets more than what is left. With children that keep
// to their budgets, the tree's real spend (the root's calls plus every
// child's own count, reported or not) therefore never exceeds the budget
// by more than the largest single model call of the root. And the root
// counts its children's spending exactly: its usage is its own calls plus,
// for each child, the most any report it was handed said the child spent,
// whatever order reports and closes arrived in.
func spendWithinBudget(s *pshell) error {
	var real int64
	for _, c := range s.children {
		real += c.spent
	}
	real += s.ownTokens
	if b := s.cfg.Options.Budget.MaxTokens; real > b+s.maxCall {
		return fmt.Errorf("the tree spent %d tokens, budget %d, largest call %d", real, b, s.maxCall)
	}
	var reported int64
	for _, n := range s.reported {
		reported += n
	}
	u := s.l.State().Usage
	if known := u.InputTokens + u.OutputTokens; known != s.ownTokens+reported {
		return fmt.Errorf("the root counts %d tokens: its calls spent %d and its children reported %d", known, s.ownTokens, reported)
	}
	return nil
}

// everyTurnCloses is invariant 5: once the shell answers every command
// successfully (decisions made, children answering, mail delivered) the
// loop comes to rest with no turn open, and every turn/start of the log has
// its turn/end.
func everyTurnCloses(s *pshell) error {
	s.logf = nil
	if !s.drain() {
		return fmt.Errorf("the loop did not come to rest: %d commands outstanding", len(s.out))
	}
	if err := loopNeverFails(s); err != nil {
		return fmt.Errorf("while draining: %w", err)
	}
	open := map[int]bool{}
	for _, env := range s.logs {
		switch env.Type {
		case eventlog.TypeTurnStart, eventlog.TypeTurnEnd:
			e, err := eventlog.Decode(env)
			if err != nil {
				return err
			}
			if ts, ok := e.(eventlog.TurnStart); ok {
				open[ts.Turn] = true
			} else {
				delete(open, e.(eventlog.TurnEnd).Turn)
			}
		}
	}
	if len(open) > 0 || s.l.State().InTurn {
		return fmt.Errorf("turns %v never closed (turn %d open: %t)", open, s.l.State().Turn, s.l.State().InTurn)
	}
	if len(s.journaled) != len(s.logs) {
		return fmt.Errorf("at rest history carries %d of the log's %d events", len(s.journaled), len(s.logs))
	}
	return nil
}

// journaledOnce is invariant 6: history carries every recorded event
// once, in its stripped form and in log order. The journals the shell's
// commands carry and the markers it writes, as Carry placed them, read in
// the order the shell executes them, are a prefix of the log; the events
// past it wait for their Ready. At rest (everyTurnCloses) it is the whole
// log: nothing recorded is left out of history.
func journaledOnce(s *pshell) error {
	if len(s.journaled) > len(s.logs) {
		return fmt.Errorf("history carries %d events of a log of %d", len(s.journaled), len(s.logs))
	}
	for i, got := range s.journaled {
		want, err := eventlog.Strip(s.logs[i])
		if err != nil {
			return err
		}
		if got.Seq != want.Seq || got.Type != want.Type || got.Ref != want.Ref ||
			string(got.Data) != string(want.Data) || got.At.UnixMilli() != want.At.UnixMilli() {
			return fmt.Errorf("history carries %+v where the log holds %+v", got, want)
		}
	}
	return nil
}

// checkAll is what every action is checked against.
func checkAll(s *pshell) error {
	for _, inv := range []func(*pshell) error{loopNeverFails, deliveredAtMostOnce, logFoldsToState, spendWithinBudget, journaledOnce} {
		if err := inv(s); err != nil {
			return err
		}
	}
	return nil
}

func TestPropertyLoopKeepsItsInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := newShell(propConfig(), t.Logf)
		p := &prop{s: s}
		t.Repeat(p.actions())
		if s.hit != "" {
			return
		}
		err := checkAll(s)
		if err == nil {
			err = everyTurnCloses(s)
		}
		if err == nil {
			err = checkAll(s)
		}
		if f := openFinding(s); err != nil && f != "" {
			t.Logf("ran into the open finding %q: %v", f, err)
			return
		}
		if err != nil {
			t.Fatal(err)
		}
	})
}

// prop holds the actions: each sends one input (or a few, for a flood) the
// real shell could send in the loop's present state.
type prop struct{ s *pshell }

func (p *prop) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"answer": p.answer, "answer2": p.answer, "answer3": p.answer, "answer4": p.answer,
		"resume": p.resume, "resume2": p.resume,
		"accept": p.accept, "accept2": p.accept,
		"cancel":    p.cancel,
		"select":    p.selectModel,
		"maintain":  p.maintain,
		"make":      p.make,
		"spawn":     p.spawn,
		"decide":    p.decide,
		"childTurn": p.childTurn,
		"childEnd":  p.childEnd,
		"deliver":   p.deliver,
		"deliver2":  p.deliver,
		"redeliver": p.redeliver,
		"continue":  p.cont,
		"tick":      p.tick,
		"flood":     p.flood,
		"":          p.check,
	}
}

// check checks every invariant after an action. A sequence that runs
// into a finding still open (findings_test.go) stops there: its minimal
// case is a table test already.
func (p *prop) check(t *rapid.T) {
	if p.s.hit != "" {
		return
	}
	err := checkAll(p.s)
	if err == nil {
		return
	}
	if f := openFinding(p.s); f != "" {
		p.s.hit = f
		t.Logf("ran into the open finding %q: %v", f, err)
		return
	}
	t.Fatal(err)
}

// over: the workflow completed, or the sequence ran into an open finding;
// every action then does nothing.
func (p *prop) over() bool { return p.s.finished || p.s.hit != "" }

// answer finishes one outstanding command with a random outcome.
func (p *prop) answer(t *rapid.T) {
	if p.over() {
		return
	}
	s := p.s
	if len(s.out) == 0 {
		t.Skip("nothing outstanding")
	}
	o := s.out[rapid.IntRange(0, len(s.out)-1).Draw(t, "command")]
	s.feed(p.outcome(t, o))
}

func (p *prop) resume(t *rapid.T) {
	if p.over() {
		return
	}
	if !p.s.l.Due() {
		t.Skip("nothing due")
	}
	p.s.feed(Resume{})
}

// msgIDs is the small pool client message IDs come from, so they collide.
var msgIDs = []eventlog.MessageID{"m1", "m2", "m3", "m4"}

func (p *prop) accept(t *rapid.T) {
	if p.over() {
		return
	}
	s := p.s
	in := Accept{
		Message: signals.Message{ID: rapid.SampledFrom(append(msgIDs, "")).Draw(t, "id"),
			Content: rapid.SampledFrom([]string{"hello", "go on", ""}).Draw(t, "content")},
		List: rapid.SampledFrom([]eventlog.List{eventlog.NextTurn, eventlog.NextTurn, eventlog.NextStep, "elsewhere"}).Draw(t, "list"),
		Wake: rapid.Bool().Draw(t, "wake"),
	}
	if rapid.IntRange(0, 3).Draw(t, "scheduled") == 0 {
		in.At = s.now.Add(time.Duration(rapid.IntRange(1, 3600).Draw(t, "in seconds")) * time.Second)
	}
	s.feed(in)
}

// cancel cancels the turn, with or without the inbox, or disposes the agent
// (rarely: that ends the sequence).
func (p *prop) cancel(t *rapid.T) {
	if p.over() {
		return
	}
	cause := rapid.SampledFrom([]string{"", "stop"}).Draw(t, "cause")
	if rapid.IntRange(0, 4).Draw(t, "dispose") == 0 {
		p.s.feed(Dispose{Cause: cause})
		return
	}
	p.s.feed(Cancel{Cause: cause, KeepInbox: rapid.Bool().Draw(t, "keepInbox")})
}

func (p *prop) selectModel(t *rapid.T) {
	if p.over() {
		return
	}
	p.s.feed(SelectModel{Selection: rapid.SampledFrom([]signals.Selection{
		{Provider: "anthropic", Model: "big"}, {Provider: "openai", Model: "small", Effort: "low"}, {},
		{Provider: "nobody"}, // refused: the worker does not offer it
	}).Draw(t, "selection")})
}

func (p *prop) maintain(t *rapid.T) {
	if p.over() {
		return
	}
	p.s.feed(Maintain{Task: rapid.SampledFrom([]signals.MaintenanceTask{signals.TaskCompact, "defrag"}).Draw(t, "task")})
}

// make is a hook's message, made while one of its hooks runs.
func (p *prop) make(t *rapid.T) {
	if p.over() {
		return
	}
	if !slices.ContainsFunc(p.s.out, func(o outstanding) bool { _, ok := o.cmd.(RunHooks); return ok }) {
		t.Skip("no hook runs")
	}
	p.s.feed(Make{Content: "steer from a hook", List: rapid.SampledFrom([]eventlog.List{eventlog.NextStep, eventlog.NextTurn}).Draw(t, "list"),
		Wake: rapid.Bool().Draw(t, "wake")})
}

// spawn is a client's detached spawn; its ID shares the message IDs' pool
// and dedupe window.
func (p *prop) spawn(t *rapid.T) {
	if p.over() {
		return
	}
	p.s.feed(SpawnChild{Spawn: signals.Spawn{ID: rapid.SampledFrom(msgIDs).Draw(t, "id"),
		SpawnArgs: signals.SpawnArgs{Task: "watch", Budget: rapid.SampledFrom([]float64{0, 0.25, 1}).Draw(t, "share")}}})
}

// decide decides a call waiting for a person, or one that is not (refused).
func (p *prop) decide(t *rapid.T) {
	if p.over() {
		return
	}
	s := p.s
	callID := rapid.SampledFrom([]string{"c0", "c1", "c2"}).Draw(t, "call")
	if pend := s.l.State().Pending; len(pend) > 0 && rapid.IntRange(0, 3).Draw(t, "pending") > 0 {
		callID = pend[rapid.IntRange(0, len(pend)-1).Draw(t, "which")].CallID
	}
	in := Decide{Verdict: rapid.SampledFrom([]Verdict{Approve, Deny, Answer}).Draw(t, "verdict"),
		Decision: signals.Decision{ID: rapid.SampledFrom([]eventlog.MessageID{"d1", "d2", "m1"}).Draw(t, "id"), CallID: callID,
			Text: rapid.SampledFrom([]string{"", "because"}).Draw(t, "text")}}
	if s.l.CheckDecision(in.Verdict, in.Decision) != nil {
		t.Skip("the update's validator refuses it") // as the shell's does: it never reaches the loop
	}
	s.feed(in)
}

func (p *prop) someChild(t *rapid.T) *fakeChild {
	var live []*fakeChild
	for _, c := range p.s.children {
		if !c.ended && c.started {
			live = append(live, c)
		}
	}
	if len(live) == 0 {
		t.Skip("no live child")
	}
	return live[rapid.IntRange(0, len(live)-1).Draw(t, "child")]
}

// childTurn: a child settles a turn, spending tokens; its report is mailed.
func (p *prop) childTurn(t *rapid.T) {
	if p.over() {
		return
	}
	c := p.someChild(t)
	p.s.settle(c, rapid.SampledFrom([]eventlog.EndReason{eventlog.EndCompleted, eventlog.EndFailed, eventlog.EndCanceled}).Draw(t, "reason"),
		rapid.Int64Range(0, 3000).Draw(t, "tokens"))
}

// childEnd: a child ends; its end report and its close are mailed.
func (p *prop) childEnd(t *rapid.T) {
	if p.over() {
		return
	}
	p.s.end(p.someChild(t), "failed: boom")
}

// deliver hands the loop one mailed child report, in any order, or a
// close once its child's reports arrived.
func (p *prop) deliver(t *rapid.T) {
	if p.over() {
		return
	}
	next := p.s.deliverable()
	if len(next) == 0 {
		t.Skip("no mail")
	}
	p.s.deliver(next[rapid.IntRange(0, len(next)-1).Draw(t, "mail")])
}

// redeliver signals a report again (a raw resend).
func (p *prop) redeliver(t *rapid.T) {
	if p.over() {
		return
	}
	if len(p.s.sent) == 0 {
		t.Skip("nothing sent")
	}
	p.s.hand(p.s.sent[rapid.IntRange(0, len(p.s.sent)-1).Draw(t, "report")])
}

// cont asks to continue as new where the shell would: at a boundary, with
// no child start unresolved.
func (p *prop) cont(t *rapid.T) {
	if p.over() {
		return
	}
	s := p.s
	if !s.l.AtBoundary() || slices.ContainsFunc(s.out, func(o outstanding) bool { _, ok := o.cmd.(StartChild); return ok }) {
		t.Skip("not at a boundary")
	}
	s.feed(Continue{})
}

func (p *prop) tick(t *rapid.T) {
	p.s.now = p.s.now.Add(time.Duration(rapid.IntRange(1, 7200).Draw(t, "seconds")) * time.Second)
}

// flood accepts MaxRecentIDs+1 fresh injects at once, cheaply, so every ID
// before them leaves the dedupe window.
func (p *prop) flood(t *rapid.T) {
	if p.over() {
		return
	}
	s := p.s
	if s.floods >= 1 || rapid.IntRange(0, 2).Draw(t, "flood now") > 0 {
		t.Skip("a flood costs: one a sequence at most") // the eventlog copies its inbox on every insert
	}
	s.trace = append(s.trace, fmt.Sprintf("flood of %d injects", MaxRecentIDs+1))
	t.Logf("step flood of %d injects", MaxRecentIDs+1)
	flood(s)
}

// outcome draws what an outstanding command came to: success, each class
// of error, or canceled once interrupted.
func (p *prop) outcome(t *rapid.T, o outstanding) Input {
	s := p.s
	canceled := o.interrupted && rapid.IntRange(0, 3).Draw(t, "canceled") > 0
	fails := func(label string) bool { return rapid.IntRange(0, 7).Draw(t, label) == 0 }
	switch c := o.cmd.(type) {
	case RunHooks:
		h := HooksRan{Point: c.Point}
		if canceled || fails("hook fails") {
			h.Err = errCanceled
		}
		if c.Point == PointRuntimeContext {
			h.Text = rapid.SampledFrom([]string{"", "cwd: /a", "cwd: /b"}).Draw(t, "runtime")
		}
		return h
	case ChooseModel:
		m := ModelChosen{Selection: c.Default}
		if rapid.Bool().Draw(t, "other model") {
			m.Selection = signals.Selection{Provider: "openai", Model: "other"}
		}
		if canceled || fails("model hook fails") {
			m.Err = errCanceled
		}
		return m
	case DecidePreStep:
		var d PreStepDecided
		switch rapid.IntRange(0, 7).Draw(t, "pre-step") {
		case 0:
			d.Decision = Reject("not now")
		case 1:
			d.Decision = Decision{Compact: true, Messages: c.Batch}
		case 2:
			d.Decision = Enter(append(slices.Clone(c.Batch), Message{Content: "a hook's addition"}))
		case 3:
			d.Err = errCanceled
		default:
			d.Decision = Enter(c.Batch)
		}
		return d
	case ShapeRequest:
		r := RequestShaped{Config: c.Default}
		if canceled || fails("request hook fails") {
			r.Err = errCanceled
		}
		return r
	case Recover:
		r := Recovered{Action: Action{Retry: rapid.Bool().Draw(t, "retry"), Compact: rapid.IntRange(0, 3).Draw(t, "compact") == 0}}
		if rapid.Bool().Draw(t, "backoff") {
			r.Action.After = 5 * time.Second
		}
		if fails("recover fails") {
			r.Err = errCanceled
		}
		return r
	case CallModel:
		if canceled {
			return ModelDone{Failure: &eventlog.Failure{Kind: eventlog.FailureCanceled, Message: "canceled"}}
		}
		if fails("model fails") {
			return ModelDone{Failure: &eventlog.Failure{Kind: rapid.SampledFrom(eventlog.FailureKinds).Draw(t, "kind"), Message: "no"}}
		}
		return ModelDone{Output: p.modelOutput(t)}
	case Summarize:
		if canceled || fails("summary fails") {
			return Summarized{Err: errCanceled}
		}
		return Summarized{Text: "summary"}
	case ListTools:
		if canceled || fails("listing fails") {
			return ToolsListed{Err: errCanceled}
		}
		l := srvListing()
		if rapid.Bool().Draw(t, "unchanged") {
			l.Servers[0] = eventlog.ServerTools{Server: "srv", Unchanged: true}
		}
		return ToolsListed{Listing: l}
	case StartTimer:
		s.now = later(s.now, o.due)
		return TimerFired{ID: c.ID}
	case StartChild:
		if fails("child start fails") {
			return ChildStart{ChildID: c.ChildID, Err: errCanceled}
		}
		return ChildStart{ChildID: c.ChildID}
	case RunToolPre:
		r := ToolPreRan{CallID: c.Call.ID}
		switch rapid.IntRange(0, 7).Draw(t, "pre hook") {
		case 0:
			r.Denied = "no"
		case 1:
			r.Err = errCanceled
		}
		return r
	case StartTool:
		switch {
		case canceled:
			return ToolDone{CallID: c.Call.ID, Canceled: true}
		case fails("tool fails"):
			return ToolDone{CallID: c.Call.ID, Failed: "boom"}
		}
		return ToolDone{CallID: c.Call.ID, Ref: eventlog.ActivityRef(c.ActivityID),
			Output: signals.ToolOutput{Content: "ok", ConcludesTurn: rapid.IntRange(0, 7).Draw(t, "concludes") == 0}}
	case RunToolPost:
		r := ToolPostRan{CallID: c.Call.ID, Output: c.Result}
		if rapid.IntRange(0, 3).Draw(t, "post edits") == 0 {
			r.Output.Content = "edited"
		}
		if canceled || fails("post hook fails") {
			r.Err = errCanceled
		}
		return r
	}
	panic(fmt.Sprintf("no outcome for %T", o.cmd))
}

// toolNames are what the model may call: the agent's tools, the loop's,
// the MCP server's, and one it does not have.
var toolNames = []string{"t", "seq", "excl", signals.SpawnTool, signals.AskHumanTool, signals.WaitTool,
	signals.MCPToolName("srv", "echo"), "nope"}

var toolArgs = map[string][]string{
	signals.SpawnTool:    {`{"task":"sub"}`, `{"task":"sub","mode":"detach","list":"next-step"}`, `{"task":"sub","budget":1}`, `{"task":""}`},
	signals.AskHumanTool: {`{"question":"why?"}`, `{}`},
	signals.WaitTool:     {`{"seconds":30}`, `{"seconds":-1}`},
}

// modelOutput is a model's answer: text, tool calls (their IDs from a small
// pool, so they repeat and collide), tokens spent.
func (p *prop) modelOutput(t *rapid.T) signals.ModelOutput {
	out := signals.ModelOutput{FinishReason: eventlog.FinishStop,
		Text:  rapid.SampledFrom([]string{"", "an answer"}).Draw(t, "text"),
		Usage: eventlog.Usage{InputTokens: rapid.Int64Range(0, 1500).Draw(t, "input tokens"), OutputTokens: rapid.Int64Range(0, 500).Draw(t, "output tokens")}}
	n := rapid.IntRange(0, 3).Draw(t, "calls")
	for range n {
		name := rapid.SampledFrom(toolNames).Draw(t, "tool")
		args := `{}`
		if a := toolArgs[name]; a != nil {
			args = rapid.SampledFrom(a).Draw(t, "args")
		}
		out.ToolCalls = append(out.ToolCalls, eventlog.ToolCallRequest{ID: rapid.SampledFrom([]string{"c0", "c1", "c2", ""}).Draw(t, "call id"),
			Name: name, Arguments: json.RawMessage(args)})
	}
	if n > 0 {
		out.FinishReason = eventlog.FinishToolCalls
	}
	return out
}
