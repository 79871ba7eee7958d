package loop

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// hooksRan applies a serial hook point's outcome. An error fails the turn.
func (l *Loop) hooksRan(now time.Time, in HooksRan) {
	want := map[Point]phase{PointStepBoundary: boundary, PointRuntimeContext: preparing, PointTurnStopping: stopping}
	if !l.expect(want[in.Point], in) {
		return
	}
	if in.Err != nil {
		l.failTurn(now, in.Err.Error())
		return
	}
	switch in.Point {
	case PointStepBoundary:
		if l.listingDue() {
			l.listTools()
			return
		}
		l.moveTo(choosing)
		l.emit(ChooseModel{Default: l.state.Selection})
	case PointRuntimeContext:
		l.turn.context = in.Text
		l.moveTo(shaping)
		l.emit(ShapeRequest{Default: l.defaultCall()})
	case PointTurnStopping:
		l.stopped(now)
	}
}

func (l *Loop) modelChosen(now time.Time, in ModelChosen) {
	if in.Err != nil {
		l.failTurn(now, in.Err.Error())
		return
	}
	l.turn.step.Selection = in.Selection
	l.turn.step.Tools = l.toolSet()
	l.moveTo(deciding)
	l.emit(DecidePreStep{Batch: batchMessages(l.turn.batch)})
}

// toolSet resolves the step's tools once: the agent's enabled tools with
// the worker's modes, and the MCP tools its entries enable from the
// listings the run recorded, in the entries' order. An MCP tool whose name
// another tool has is left out; so is any tool past signals.MaxTools. It
// is disposed when the step ends.
func (l *Loop) toolSet() []Tool {
	out := make([]Tool, 0, len(l.cfg.Options.Tools))
	seen := map[string]bool{}
	for _, name := range l.cfg.Options.Tools {
		if _, ok := signals.ParseMCPGrant(name); !ok {
			seen[l.toolName(name)] = true
		}
	}
	for _, name := range l.cfg.Options.Tools {
		g, ok := signals.ParseMCPGrant(name)
		if !ok {
			n := l.toolName(name)
			if l.cfg.Rules < RulesA2A || !slices.ContainsFunc(out, func(t Tool) bool { return t.Name == n }) {
				out = append(out, Tool{Name: n, Mode: l.mode(n)})
			}
			continue
		}
		for _, t := range l.mcpTools(g) {
			if !seen[t.Name] {
				seen[t.Name] = true
				out = append(out, t)
			}
		}
	}
	return out[:min(len(out), signals.MaxTools)]
}

// toolName is the name the model calls the agent's tool entry by: the
// entry itself, but for a remote A2A agent ("a2a:<name>", RulesA2A on).
func (l *Loop) toolName(entry string) string {
	if name, ok := signals.ParseA2AEntry(entry); ok && l.cfg.Rules >= RulesA2A {
		return signals.A2AToolName(name)
	}
	return entry
}

// stepTool is the step's tool called name.
func (l *Loop) stepTool(name string) (Tool, bool) {
	for _, t := range l.turn.step.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

func (l *Loop) mode(name string) signals.ToolMode {
	if m, ok := l.cfg.Modes[name]; ok && m != "" {
		return m
	}
	return signals.ToolParallel
}

func batchMessages(batch []eventlog.Pending) []Message {
	out := make([]Message, len(batch))
	for i, p := range batch {
		out[i] = Message{ID: p.ID, Content: p.Content}
	}
	return out
}

// preStepDecided applies pre-step's authoritative decision: reject closes
// the turn as blocked without spending a step; enter opens the step, after
// compacting the context when the decision asks for it.
func (l *Loop) preStepDecided(now time.Time, in PreStepDecided) {
	d := in.Decision
	switch {
	case in.Err != nil:
		l.failTurn(now, in.Err.Error())
	case d.Reject:
		l.endTurn(now, eventlog.EndBlocked, firstOf(d.Reason, "rejected by pre-step"))
	case d.Compact:
		l.turn.entered = d.Messages
		l.startCompaction(now, compaction{purpose: forStep}, false)
	default:
		l.turn.entered = d.Messages
		l.openStep(now)
	}
}

// openStep records step/start. The runtime-context and request waterfalls
// run before anything enters the context, so canceling while the request
// is prepared commits neither system nor user messages (seed 002).
func (l *Loop) openStep(now time.Time) {
	sel := l.turn.step.Selection
	l.record(now, "", eventlog.StepStart{Turn: l.turn.step.Turn, Step: l.turn.step.Step,
		Provider: sel.Provider, Model: sel.Model, Effort: sel.Effort})
	l.turn.last = stepOutcome{}
	l.moveTo(preparing)
	l.emit(RunHooks{Point: PointRuntimeContext})
}

// defaultCall is the call configuration request hooks start from.
func (l *Loop) defaultCall() signals.CallConfig {
	s := l.turn.step
	names := make([]string, len(s.Tools))
	for i, t := range s.Tools {
		names[i] = t.Name
	}
	return signals.CallConfig{
		Provider: s.Selection.Provider, Model: s.Selection.Model, Effort: s.Selection.Effort,
		MaxTokens: l.cfg.Options.MaxTokens, Tools: names, Turn: s.Turn, Step: s.Step, Stream: l.cfg.StreamHooks,
	}
}

// requestShaped freezes the call configuration (turn and step are the
// loop's: a hook cannot move the call to another step), admits what the
// step brings and calls the model.
func (l *Loop) requestShaped(now time.Time, in RequestShaped) {
	if in.Err != nil {
		l.failTurn(now, in.Err.Error())
		return
	}
	cfg := in.Config
	cfg.Turn, cfg.Step = l.turn.step.Turn, l.turn.step.Step
	l.turn.call = cfg
	if l.state.Canceling != "" { // canceled while preparing: nothing enters
		l.failTurn(now, l.state.Canceling)
		return
	}
	l.admitMessages(now)
	l.admitRuntimeContext(now)
	l.admitRequest(now)
	l.callModel(now)
}

// admitMessages records the system prompt when its assembly changed, then
// each entered message.
func (l *Loop) admitMessages(now time.Time) {
	if prompt, ref := l.assemble(); prompt != l.state.SystemPrompt {
		l.record(now, ref, eventlog.SystemMessage{Content: prompt})
	}
	for _, m := range l.turn.entered {
		if m.ID == "" {
			l.made++
			m.ID = signals.MadeMessageID(l.state.Turn, l.made)
		}
		ref := msgRef(m.ID)
		if !l.claimed(m) { // a hook rewrote or added it: its content is new
			ref = ""
		}
		l.record(now, ref, eventlog.UserMessage{MessageID: m.ID, Content: m.Content})
	}
	l.turn.entered, l.turn.batch = nil, nil
}

// admitRuntimeContext records the runtime-context snapshot when it
// changed; a changed snapshot alone never opens a step.
func (l *Loop) admitRuntimeContext(now time.Time) {
	if l.turn.context != l.state.RuntimeContext {
		l.record(now, "", eventlog.RuntimeContext{Content: l.turn.context})
	}
}

// admitRequest records what the request is sent with: its header when it
// changed, and the size of its context.
func (l *Loop) admitRequest(now time.Time) {
	c := l.turn.call
	h := eventlog.RequestHeader{Provider: c.Provider, Model: c.Model, Effort: c.Effort, MaxTokens: c.MaxTokens, Tools: c.Tools}
	// Under RulesCallFromHeader the model activity reads the header from
	// this run's log, so a run records it at its first call too.
	unread := l.cfg.Rules >= RulesCallFromHeader && !l.header
	if prev := l.state.Header; prev == nil || !sameHeader(*prev, h) || unread {
		l.record(now, "", h)
		l.header = true
	}
	msgs := l.msgs
	if l.state.SystemPrompt != "" {
		msgs++
	}
	l.record(now, "", eventlog.RequestContext{Messages: msgs, Tokens: l.ContextTokens()})
}

func sameHeader(a, b eventlog.RequestHeader) bool {
	return a.Provider == b.Provider && a.Model == b.Model && a.Effort == b.Effort &&
		a.MaxTokens == b.MaxTokens && slices.Equal(a.Tools, b.Tools)
}

// claimed reports whether m is a message of the batch, unchanged.
func (l *Loop) claimed(m Message) bool {
	for _, p := range l.turn.batch {
		if p.ID == m.ID {
			return p.Content == m.Content
		}
	}
	return false
}

func (l *Loop) callModel(now time.Time) {
	s, c := l.state, l.turn.call
	what := "model"
	if c.Model != "" {
		what += " " + c.Model
	}
	l.moveTo(calling)
	l.carry()
	in := signals.ModelInput{Ref: signals.LogRef{Upto: s.Len}, Call: c}
	if l.cfg.Rules >= RulesCallFromHeader { // the ID and the header say the rest
		in.Call = signals.CallConfig{Stream: c.Stream}
	}
	l.emit(CallModel{
		ActivityID: signals.ModelActivityID(s.Turn, s.Step),
		Summary:    fmt.Sprintf("%s turn %d step %d", what, s.Turn, s.Step),
		Input:      in,
		Call:       c,
	})
}

// modelDone records the model call's outcome. A failed call records an
// assistant attempt and closes its step; request-error then decides, for
// an aborted call too.
func (l *Loop) modelDone(now time.Time, in ModelDone) {
	s, c := l.state, l.turn.call
	if f := in.Failure; f != nil {
		l.record(now, "", eventlog.AssistantAttempt{Failure: *f, Provider: c.Provider, Model: c.Model, Stream: in.Stream})
		l.record(now, "", eventlog.StepEnd{Turn: s.Turn, Step: s.Step})
		l.turn.failed = fmt.Sprintf("model call failed (%s): %s", f.Kind, f.Message)
		l.turn.failure = *f
		l.moveTo(recovering)
		l.emit(Recover{Failure: *f})
		return
	}
	l.turn.callsSeq = s.Len
	if in.Output.Text != "" {
		l.turn.lastText = in.Output.Text
	}
	ref := eventlog.ActivityRef(signals.ModelActivityID(s.Turn, s.Step))
	if out, fixed := normalizeCalls(in.Output); fixed {
		in.Output, ref = out, "" // what the log holds is no longer the activity's result
	}
	l.record(now, ref, in.Output)
	if len(in.Output.ToolCalls) == 0 {
		l.endStep(now)
		return
	}
	l.turn.last.toolCalls = true
	l.enterTools(now, in.Output.ToolCalls)
}

// recovered applies request-error's action: retry closes the failed turn
// and opens a retry turn over the same state (after compacting, or a
// backoff, when asked); anything else leaves the failure terminal.
func (l *Loop) recovered(now time.Time, in Recovered) {
	a := in.Action
	switch {
	case l.state.Canceling != "":
		l.moveTo(proposing)
	case in.Err != nil:
		l.turn.failed += "; request-error hook failed: " + in.Err.Error()
		l.moveTo(proposing)
	case !a.Retry:
		l.moveTo(proposing)
	case a.Compact:
		l.startCompaction(now, compaction{purpose: forRetry, after: a.After}, true)
	default:
		l.retryAfter(now, a.After)
	}
}

// retryAfter opens the retry turn now, or after a durable timer.
func (l *Loop) retryAfter(now time.Time, d time.Duration) {
	if d <= 0 {
		l.retry(now)
		return
	}
	l.moveTo(backoff)
	l.emit(StartTimer{ID: signals.BackoffTimer, After: d})
}

// timerFired routes a timer to what started it: a scheduled message, the
// retry backoff, a decision's deadline, a wait.
func (l *Loop) timerFired(now time.Time, in TimerFired) {
	if id, ok := signals.ParseScheduleTimer(in.ID); ok {
		l.deliver(now, id, in.Canceled)
		return
	}
	if in.ID != signals.BackoffTimer {
		if !l.orch.timerFired(now, in) {
			l.fail(l.invalid("timer %q was not started", in.ID))
		}
		return
	}
	if !l.expect(backoff, in) {
		return
	}
	if in.Canceled || l.state.Canceling != "" {
		l.moveTo(proposing)
		return
	}
	l.retry(now)
}

// endStep closes the step and disposes its tool set. The next Step goes
// on with the turn: a long turn may continue as new in between.
func (l *Loop) endStep(now time.Time) {
	l.record(now, "", eventlog.StepEnd{Turn: l.state.Turn, Step: l.state.Step})
	l.turn.step.Tools, l.turn.tools = nil, nil
	l.moveTo(proposing)
	l.stepEnded = true
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// MaxCallIDBytes bounds a tool call ID the loop keeps as the model wrote it;
// it is part of idempotency keys and activity inputs.
const MaxCallIDBytes = 64

// normalizeCalls makes the model's tool calls safe to record and run:
//   - arguments that are not JSON come back as a JSON string, which the
//     tool's schema then refuses with an error result the model reads,
//     instead of a log that cannot record them;
//   - an empty, oversized or repeated call ID (some OpenAI-compatible
//     servers send them) becomes "call-<index>" (with a suffix while that
//     is taken), so no two calls share a result or an idempotency key.
func normalizeCalls(out signals.ModelOutput) (signals.ModelOutput, bool) {
	fixed := false
	edit := func() {
		if !fixed {
			out.ToolCalls, fixed = slices.Clone(out.ToolCalls), true
		}
	}
	seen := map[string]bool{}
	for i, c := range out.ToolCalls {
		if !json.Valid(c.Arguments) {
			edit()
			s, _ := json.Marshal(string(c.Arguments))
			out.ToolCalls[i].Arguments = s
		}
		if c.ID == "" || len(c.ID) > MaxCallIDBytes || seen[c.ID] {
			edit()
			id := fmt.Sprintf("call-%d", i)
			for n := 1; seen[id] || slices.ContainsFunc(out.ToolCalls[i+1:], func(o eventlog.ToolCallRequest) bool { return o.ID == id }); n++ {
				id = fmt.Sprintf("call-%d-%d", i, n)
			}
			out.ToolCalls[i].ID = id
		}
		seen[out.ToolCalls[i].ID] = true
	}
	return out, fixed
}
