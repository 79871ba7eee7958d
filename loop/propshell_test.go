package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// The property tests' shell: a fake workflow that keeps every command the
// loop emitted and has not had its outcome yet, executes the commands that
// have none (interrupts, timer cancels, signals to children, the end of a
// run), plays the child agents, and keeps what the invariants need: its
// own fold of every recorded envelope, the claims, the tokens spent.
//
// It never decides anything by itself: the property's actions (or a table
// test's script) choose which command to answer and how.

// pshell is the fake shell. Its zero value is not usable: see newShell.
type pshell struct {
	cfg Config
	l   *Loop
	now time.Time
	run int // runs continued as new so far

	out      []outstanding // commands waiting for their outcome, oldest first
	queue    []Input       // outcomes due at once: canceled timers, as Temporal resolves them
	quiet    bool          // a flood: no trace line per input
	children []*fakeChild
	mail     []Input // child reports and closes not yet delivered, in any order later
	sent     []ChildReport

	// What the invariants read.
	fold      eventlog.State // the shell's own fold of every recorded envelope
	foldErr   error
	logs      []eventlog.Envelope // every envelope of every run, in order
	journaled []eventlog.Envelope // what history carries of them, as Carry placed it, in order
	seedJ     signals.Journal     // the journal the last ContinueAsNew carries in its seed
	claims    map[eventlog.MessageID]int
	ownTokens int64 // input + output tokens of the model calls the log records
	maxCall   int64 // the most one model call spent
	reported  map[string]int64
	failed    error // a Fail command, or a refused request that changed something
	finished  bool  // Finish: the workflow completed, nothing more arrives
	floods    int
	// Signatures of the findings still open (findings_test.go).
	resentPending bool                        // an accepted resend of a pending ID failed the loop
	resentReport  bool                        // a child's report resent while pending failed the loop
	lateReport    bool                        // a turn report came after its child's end or close
	pastWindow    map[eventlog.MessageID]bool // inserted again after a flood pushed it out of the window
	insertedAt    map[eventlog.MessageID]int  // floods before the ID last entered the window
	endSeen       map[string]bool
	hit           string // the open finding a sequence ran into: it stops there
	seq           int    // for IDs the shell makes up (decisions, floods)
	trace         []string
	logf          func(format string, args ...any)
}

// outstanding is a command waiting for its outcome. interrupted: an
// Interrupt came after it was emitted.
type outstanding struct {
	cmd         Command
	interrupted bool
	due         time.Time // a timer's firing time
}

// fakeChild is a child agent as the shell plays it: it spends tokens in
// turns, never more than its budget, and reports each turn and its end.
type fakeChild struct {
	id     string
	budget int64 // tokens; 0: none
	spent  int64
	turn   int
	ended  bool
	// started: its parent heard it started (ChildStart); before that it
	// has sent nothing.
	started bool
	run     int // the run that started it: only that run hears it close
}

func newShell(cfg Config, logf func(string, ...any)) *pshell {
	s := &pshell{cfg: cfg, l: New(cfg), now: t0, fold: eventlog.NewState(0),
		claims: map[eventlog.MessageID]int{}, reported: map[string]int64{}, logf: logf,
		pastWindow: map[eventlog.MessageID]bool{}, insertedAt: map[eventlog.MessageID]int{}, endSeen: map[string]bool{}}
	s.feed(Resume{}) // the shell's first step
	return s
}

// propConfig is the agent the properties run: every kind of tool (a local
// one, sequential, exclusive behind approval, the loop's own, an MCP
// server), a token budget its children share, interruptible waits.
func propConfig() Config {
	return Config{
		AgentID: "a1",
		Options: signals.AgentOptions{
			SystemPrompt:     "you are a1",
			Tools:            []string{"t", "seq", "excl", signals.SpawnTool, signals.AskHumanTool, signals.WaitTool, "mcp:srv"},
			MaxParallelTools: 2,
			Budget:           &signals.Budget{MaxTokens: propBudget},
			Approval:         &signals.ApprovalPolicy{Tools: []string{"excl"}, Timeout: time.Minute},
			Wait:             &signals.WaitPolicy{Max: time.Hour, Interruptible: true},
		},
		Modes:     map[string]signals.ToolMode{"seq": signals.ToolSequential, "excl": signals.ToolExclusive},
		Local:     []string{"t"},
		Providers: []string{"anthropic", "openai"},
	}
}

// propBudget is the root's token budget: a few model calls' worth.
const propBudget = 8000

// feed steps one input and executes what follows. An outcome input takes
// the outstanding command it answers off the list.
func (s *pshell) feed(in Input) Ready {
	s.now = s.now.Add(time.Millisecond)
	if !s.quiet {
		s.trace = append(s.trace, describe(in))
		if s.logf != nil {
			s.logf("step %s", describe(in))
		}
	}
	if i := s.answering(in); i >= 0 {
		s.out = slices.Delete(s.out, i, i+1)
	}
	if cs, ok := in.(ChildStart); ok {
		c := s.child(cs.ChildID)
		c.started, c.ended = cs.Err == nil, cs.Err != nil // one that never ran reports nothing
	}
	a, resend := in.(Accept)
	resend = resend && holds(s.l.State(), a.Message.ID)
	r, report := in.(ChildReport)
	report = report && r.Report.Turn > 0 && holds(s.l.State(), r.Report.ID)
	rd := s.l.Step(s.now, in)
	if slices.ContainsFunc(rd.Commands, func(c Command) bool { _, ok := c.(Fail); return ok }) {
		s.resentPending = s.resentPending || resend
		s.resentReport = s.resentReport || report
	}
	if rd.Err != nil && isRequest(in) && len(rd.Recorded) > 0 && s.failed == nil {
		s.failed = fmt.Errorf("%s was refused (%v) but recorded %d events", describe(in), rd.Err, len(rd.Recorded))
	}
	if cr, ok := in.(ChildReport); ok && rd.Err == nil {
		s.reported[cr.Report.Child] = max(s.reported[cr.Report.Child], cr.Report.Spent.InputTokens+cr.Report.Spent.OutputTokens)
	}
	s.absorb(rd.Recorded)
	cmds, left := Carry(rd)
	for _, c := range cmds {
		s.journaled = append(s.journaled, carried(c).Envelopes()...)
	}
	s.journaled = append(s.journaled, left.Envelopes()...) // the marker, written after the commands
	continued := s.handle(cmds)
	if continued {
		s.restart()
	}
	for len(s.queue) > 0 {
		q := s.queue[0]
		s.queue = s.queue[1:]
		s.feed(q)
	}
	return rd
}

// holds reports whether id is pending or scheduled.
func holds(st eventlog.State, id eventlog.MessageID) bool {
	_, _, pending := st.Inbox.Find(id)
	_, scheduled := st.FindScheduled(id)
	return pending || scheduled
}

// accepted notes that id entered the dedupe window, and whether it had
// entered before a flood pushed it out. An ID accepted again after the
// window forgot it is a new message (the documented bound: an ID is a
// duplicate while pending or scheduled, and for MaxRecentIDs accepted IDs
// after), so its claims count afresh.
func (s *pshell) accepted(id eventlog.MessageID) {
	if n, ok := s.insertedAt[id]; ok && n < s.floods {
		s.pastWindow[id] = true
		s.claims[id] = 0
	}
	s.insertedAt[id] = s.floods
}

// absorb folds recorded envelopes into the shell's own state, from their
// JSON, and counts claims and tokens.
func (s *pshell) absorb(envs []eventlog.Envelope) {
	for _, env := range envs {
		s.logs = append(s.logs, env)
		if s.foldErr != nil {
			continue
		}
		if env.Seq != s.fold.Len {
			s.foldErr = fmt.Errorf("envelope seq %d where the log is %d long", env.Seq, s.fold.Len)
			continue
		}
		e, err := eventlog.Decode(env)
		if err == nil {
			err = s.fold.Apply(e)
		}
		if err != nil {
			s.foldErr = fmt.Errorf("fold: %w", err)
			continue
		}
		switch e := e.(type) {
		case eventlog.MessageScheduled:
			s.accepted(e.MessageID)
		case eventlog.InboxInserted:
			if e.From == nil || e.From.Kind != eventlog.ByTimer { // a timer's is the scheduled one's
				s.accepted(e.MessageID)
			}
		case eventlog.InboxClaimed:
			s.claims[e.MessageID]++
		case eventlog.AssistantMessage:
			n := e.Usage.InputTokens + e.Usage.OutputTokens
			s.ownTokens += n
			s.maxCall = max(s.maxCall, n)
		}
	}
}

// handle executes the commands that have no outcome and keeps the others.
// It reports whether the run continued as new.
func (s *pshell) handle(cmds []Command) (continued bool) {
	for _, c := range cmds {
		switch c := c.(type) {
		case Fail:
			if s.failed == nil {
				s.failed = fmt.Errorf("the loop failed: %w", c.Err)
			}
		case Interrupt:
			for i := range s.out {
				if turnScoped(s.out[i].cmd) {
					s.out[i].interrupted = true
				}
			}
			s.cancelTimers(func(st StartTimer) bool { return turnScoped(st) })
		case CancelTimer:
			s.cancelTimers(func(st StartTimer) bool { return st.ID == c.ID })
		case SignalChild:
			s.signalChild(c)
		case Finish:
			s.finished = true
		case ContinueAsNew:
			continued, s.seedJ = true, c.Journal
		case AnswerMaintenance, ReportToParent:
		case StartTimer:
			s.out = append(s.out, outstanding{cmd: c, due: s.now.Add(c.After)})
		case StartChild:
			s.out = append(s.out, outstanding{cmd: c})
			child := &fakeChild{id: c.ChildID, run: s.run}
			if b := c.Input.Options.Budget; b != nil {
				child.budget = b.MaxTokens
			}
			s.children = append(s.children, child)
		default:
			s.out = append(s.out, outstanding{cmd: c})
		}
	}
	return continued
}

// carried is the journal c carries into history, if any.
func carried(c Command) signals.Journal {
	switch c := c.(type) {
	case CallModel:
		return c.Input.Journal
	case Summarize:
		return c.Input.Journal
	case StartTool:
		return c.Input.Journal
	case ContinueAsNew:
		return c.Journal
	case Finish:
		return c.Result.Journal
	}
	return signals.Journal{}
}

// cancelTimers cancels the outstanding timers which: each fires canceled
// at once, as a canceled Temporal timer resolves.
func (s *pshell) cancelTimers(which func(StartTimer) bool) {
	s.out = slices.DeleteFunc(s.out, func(o outstanding) bool {
		st, ok := o.cmd.(StartTimer)
		if ok && which(st) {
			s.queue = append(s.queue, TimerFired{ID: st.ID, Canceled: true})
		}
		return ok && which(st)
	})
}

// turnScoped: the command runs under the open turn's context, which an
// Interrupt cancels (a scheduled message's timer and a child's start do not).
func turnScoped(c Command) bool {
	switch c := c.(type) {
	case StartTimer:
		_, sched := signals.ParseScheduleTimer(c.ID)
		return !sched
	case StartChild:
		return false
	}
	return true
}

// restart continues as new: the seed crosses JSON as Temporal carries it,
// the next run restores from it and starts with a Resume. What was in
// flight dies with the run but children, which live on and report to the
// next run; scheduled messages' timers are armed again by the loop.
func (s *pshell) restart() {
	seed, err := s.l.Seed()
	if err != nil {
		s.failed = fmt.Errorf("seed: %w", err)
		return
	}
	seed.PrevRun, seed.Journal = fmt.Sprintf("run-%d", s.run), s.seedJ
	b, err := json.Marshal(seed)
	if err == nil {
		seed = signals.Seed{}
		err = json.Unmarshal(b, &seed)
	}
	if err != nil {
		s.failed = fmt.Errorf("seed JSON: %w", err)
		return
	}
	for _, o := range s.out {
		if sc, ok := o.cmd.(StartChild); ok { // it started; the next run never hears so
			s.child(sc.ChildID).started = true
		}
	}
	s.l = Restore(s.cfg, seed)
	s.run++
	s.out, s.queue = nil, nil
	s.trace = append(s.trace, "(continued as new)")
	s.feed(Resume{})
}

// answering is the outstanding command in answers, or -1.
func (s *pshell) answering(in Input) int {
	return slices.IndexFunc(s.out, func(o outstanding) bool { return answers(o.cmd, in) })
}

func answers(c Command, in Input) bool {
	switch c := c.(type) {
	case RunHooks:
		h, ok := in.(HooksRan)
		return ok && h.Point == c.Point
	case ChooseModel:
		_, ok := in.(ModelChosen)
		return ok
	case DecidePreStep:
		_, ok := in.(PreStepDecided)
		return ok
	case ShapeRequest:
		_, ok := in.(RequestShaped)
		return ok
	case Recover:
		_, ok := in.(Recovered)
		return ok
	case CallModel:
		_, ok := in.(ModelDone)
		return ok
	case Summarize:
		_, ok := in.(Summarized)
		return ok
	case ListTools:
		_, ok := in.(ToolsListed)
		return ok
	case StartTimer:
		f, ok := in.(TimerFired)
		return ok && f.ID == c.ID
	case StartChild:
		cs, ok := in.(ChildStart)
		return ok && cs.ChildID == c.ChildID
	case RunToolPre:
		p, ok := in.(ToolPreRan)
		return ok && p.CallID == c.Call.ID
	case StartTool:
		d, ok := in.(ToolDone)
		return ok && d.CallID == c.Call.ID
	case RunToolPost:
		p, ok := in.(ToolPostRan)
		return ok && p.CallID == c.Call.ID
	}
	return false
}

// Children.

func (s *pshell) child(id string) *fakeChild {
	for _, c := range s.children {
		if c.id == id {
			return c
		}
	}
	return nil
}

// settle makes child c end a turn, spending tokens (within its budget),
// and mails its report.
func (s *pshell) settle(c *fakeChild, reason eventlog.EndReason, tokens int64) {
	if c.ended || !c.started {
		return
	}
	if c.budget > 0 {
		tokens = min(tokens, c.budget-c.spent)
	}
	c.spent += max(0, tokens)
	c.turn++
	r := ChildReport{Report: signals.ChildReport{ID: signals.ChildReportID(c.id, c.turn), Child: c.id, Turn: c.turn,
		Reason: reason, Text: "answer of turn " + fmt.Sprint(c.turn), Spent: eventlog.Usage{InputTokens: c.spent}}}
	s.mail = append(s.mail, r)
}

// end makes child c end: it reports its end (with everything it spent, as
// its last turn report had it) and its workflow closes.
func (s *pshell) end(c *fakeChild, why string) {
	if c.ended || !c.started {
		return
	}
	c.ended = true
	s.mail = append(s.mail,
		ChildReport{Report: signals.ChildReport{ID: signals.ChildReportID(c.id, 0), Child: c.id,
			Spent: eventlog.Usage{InputTokens: c.spent}, Ended: why}},
		ChildClosed{ChildID: c.id, Status: "completed"})
}

func (s *pshell) signalChild(c SignalChild) {
	ch := s.child(c.ChildID)
	switch {
	case ch == nil:
	case c.Dispose != nil:
		s.end(ch, "disposed: "+c.Dispose.Cause)
	case c.Cancel != nil:
		s.settle(ch, eventlog.EndCanceled, 0)
	}
}

// deliverable lists the mail that may arrive next: any report, in any
// order; a child's close only after its reports, as the child signals them
// before its workflow completes.
func (s *pshell) deliverable() []int {
	var out []int
	for i, m := range s.mail {
		if cc, ok := m.(ChildClosed); ok && slices.ContainsFunc(s.mail, func(o Input) bool {
			r, ok := o.(ChildReport)
			return ok && r.Report.Child == cc.ChildID
		}) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// deliver hands mail item i to the loop. A child's close reaches only the
// run that started it; nothing reaches a workflow that completed.
func (s *pshell) deliver(i int) {
	in := s.mail[i]
	s.mail = slices.Delete(s.mail, i, i+1)
	if cc, ok := in.(ChildClosed); ok && s.child(cc.ChildID).run != s.run {
		return
	}
	if r, ok := in.(ChildReport); ok {
		s.sent = append(s.sent, r)
	}
	s.hand(in)
}

// hand delivers a child's report or close, noting a turn report that
// comes after the child's end report.
func (s *pshell) hand(in Input) {
	switch in := in.(type) {
	case ChildReport:
		if in.Report.Ended != "" {
			s.endSeen[in.Report.Child] = true
		} else if s.endSeen[in.Report.Child] {
			s.lateReport = true
		}
	}
	s.feed(in)
}

// Successful outcomes, for the drain and for table tests.

// succeed is the plain successful outcome of an outstanding command: a
// model that answers without tools, hooks that pass, tools that answer,
// timers that fire when due.
func (s *pshell) succeed(o outstanding) Input {
	switch c := o.cmd.(type) {
	case RunHooks:
		return HooksRan{Point: c.Point}
	case ChooseModel:
		return ModelChosen{Selection: c.Default}
	case DecidePreStep:
		return PreStepDecided{Decision: Enter(c.Batch)}
	case ShapeRequest:
		return RequestShaped{Config: c.Default}
	case Recover:
		return Recovered{}
	case CallModel:
		return ModelDone{Output: signals.ModelOutput{Text: "done", FinishReason: eventlog.FinishStop,
			Usage: eventlog.Usage{InputTokens: 10, OutputTokens: 5}}}
	case Summarize:
		return Summarized{Text: "summary"}
	case ListTools:
		return ToolsListed{Listing: srvListing()}
	case StartTimer:
		s.now = later(s.now, o.due)
		return TimerFired{ID: c.ID}
	case StartChild:
		return ChildStart{ChildID: c.ChildID}
	case RunToolPre:
		return ToolPreRan{CallID: c.Call.ID}
	case StartTool:
		return ToolDone{CallID: c.Call.ID, Output: signals.ToolOutput{Content: "ok"}, Ref: eventlog.ActivityRef(c.ActivityID)}
	case RunToolPost:
		return ToolPostRan{CallID: c.Call.ID, Output: c.Result}
	}
	panic(fmt.Sprintf("no outcome for %T", o.cmd))
}

func srvListing() eventlog.ToolsListed {
	return eventlog.ToolsListed{Servers: []eventlog.ServerTools{{Server: "srv", Digest: "d1", Tools: []eventlog.MCPTool{{Name: "echo"}}}}}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// drain answers everything successfully, decides every pending decision,
// delivers the mail and lets children a call waits for answer, until the
// loop has nothing left to do. It reports whether it got there.
func (s *pshell) drain() bool {
	for range 5000 {
		if s.finished || s.failed != nil || s.l.Err() != nil {
			return true
		}
		st := s.l.State()
		// A call waiting for a person is answered while the loop would take
		// the answer. One a cancel already answered stays listed until the
		// next Resume commits it (the shell resumes at once): resume then.
		var decide *Decide
		if len(st.Pending) > 0 {
			p := st.Pending[0]
			v := Approve
			if p.Kind == eventlog.NeedAnswer {
				v = Answer
			}
			d := Decide{Verdict: v, Decision: signals.Decision{ID: eventlog.MessageID(fmt.Sprintf("drain-%d", s.seq+1)), CallID: p.CallID, Text: "yes"}}
			if s.l.CheckDecision(d.Verdict, d.Decision) == nil {
				decide = &d
			}
		}
		switch {
		case len(s.out) > 0:
			s.feed(s.succeed(s.out[0]))
		case decide != nil:
			s.seq++
			s.feed(*decide)
		case len(s.mail) > 0:
			s.deliver(s.deliverable()[0])
		case s.waitedFor() != nil:
			s.settle(s.waitedFor(), eventlog.EndCompleted, 100)
		case s.l.Due():
			s.feed(Resume{})
		default:
			return true
		}
	}
	return false
}

// waitedFor is a live child an open spawn call waits for. A detached
// child started by a spawn call keeps its call's ID but nothing waits on it:
// settling it again and again would never let the loop rest.
func (s *pshell) waitedFor() *fakeChild {
	for _, c := range s.l.State().Children {
		if ch := s.child(c.ID); c.Mode == eventlog.ChildWait && c.CallID != "" && ch != nil && !ch.ended {
			return ch
		}
	}
	return nil
}

// describe is an input as a failing case's log shows it: close to the Go
// that steps it in a table test.
func describe(in Input) string {
	switch in := in.(type) {
	case ModelDone:
		if in.Failure != nil {
			return fmt.Sprintf("ModelDone{Failure: %s}", in.Failure.Kind)
		}
		var calls []string
		for _, c := range in.Output.ToolCalls {
			calls = append(calls, fmt.Sprintf("%s %s(%s)", c.ID, c.Name, c.Arguments))
		}
		return fmt.Sprintf("ModelDone{text %q, usage %d+%d, calls [%s]}", in.Output.Text, in.Output.Usage.InputTokens,
			in.Output.Usage.OutputTokens, strings.Join(calls, ", "))
	case Accept:
		return fmt.Sprintf("Accept{%s %q, %s, wake %t, at %s}", in.Message.ID, in.Message.Content, in.List, in.Wake, in.At.Format(time.TimeOnly))
	case ChildReport:
		return fmt.Sprintf("ChildReport{%s turn %d %s ended %q spent %d}", in.Report.Child, in.Report.Turn, in.Report.Reason, in.Report.Ended, in.Report.Spent.InputTokens)
	}
	return fmt.Sprintf("%T%+v", in, in)
}

var errCanceled = errors.New("canceled")
