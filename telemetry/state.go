package telemetry

import (
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// runState is what the telemetry tracks of one run, rebuilt from the
// session events the run records, during replay too: the open turn, its
// open step and its started tool calls. The workflow interceptor reads it to
// parent the SDK's activity spans; the observer updates it.
type runState struct {
	ids        chain
	agent, run string
	// header is the last request/header recorded: the loop records one only
	// when it changed.
	header eventlog.RequestHeader
	turn   *turnState
}

type turnState struct {
	n, retryOf int
	start      time.Time
	steps      int
	step       *stepState
	calls      map[string]time.Time // started tool calls: when, by call ID
}

type stepState struct {
	n               int
	start           time.Time
	provider, model string
	// requestAt is when request/context was recorded: the model call
	// starts with it.
	requestAt        time.Time
	messages, tokens int
}

// tracked are the event types the telemetry reads; it decodes no other.
var tracked = map[eventlog.Type]bool{
	eventlog.TypeTurnStart: true, eventlog.TypeTurnEnd: true, eventlog.TypeStepStart: true, eventlog.TypeStepEnd: true,
	eventlog.TypeRequestHeader: true, eventlog.TypeRequestContext: true,
	eventlog.TypeAssistantMessage: true, eventlog.TypeAssistantAttempt: true,
	eventlog.TypeToolCall: true, eventlog.TypeToolResult: true,
	eventlog.TypeContextCompacted: true, eventlog.TypeContextPruned: true,
	eventlog.TypeWaitStarted: true, eventlog.TypeChildStarted: true, eventlog.TypeDecisionRequested: true,
}

// apply folds one recorded event and, with an emitter (outside replay),
// emits what it closed: spans, counts, log lines.
func (s *runState) apply(env eventlog.Envelope, em *emitter) {
	if !tracked[env.Type] {
		return
	}
	e, err := eventlog.Decode(env)
	if err != nil {
		return // the loop recorded it, so it decodes; telemetry never fails a run
	}
	at := env.At
	switch e := e.(type) {
	case eventlog.TurnStart:
		s.turn = &turnState{n: e.Turn, retryOf: e.RetryOf, start: at, calls: map[string]time.Time{}}
		em.turnStarted(s)
	case eventlog.StepStart:
		t := s.openTurn(e.Turn, at)
		t.steps++
		t.step = &stepState{n: e.Step, start: at, provider: e.Provider, model: e.Model}
		em.stepStarted(s, t.n, e.Step)
	case eventlog.RequestHeader:
		s.header = e
	case eventlog.RequestContext:
		if st := s.openStep(); st != nil {
			st.requestAt, st.messages, st.tokens = at, e.Messages, e.Tokens
		}
	case eventlog.AssistantMessage:
		em.modelCalled(s, at, e, nil)
	case eventlog.AssistantAttempt:
		em.modelCalled(s, at, eventlog.AssistantMessage{Provider: e.Provider, Model: e.Model, Stream: e.Stream}, &e.Failure)
	case eventlog.ToolCall:
		s.callStarted(e.CallID, at)
	case eventlog.WaitStarted:
		s.callStarted(e.CallID, at)
	case eventlog.ChildStarted:
		s.callStarted(e.CallID, at)
	case eventlog.DecisionRequested:
		s.callStarted(e.CallID, at) // a call that waits for a person starts with the wait
	case eventlog.ToolResult:
		em.toolDone(s, at, e)
		if s.turn != nil {
			delete(s.turn.calls, e.CallID)
		}
	case eventlog.StepEnd:
		em.stepEnded(s, at)
		if s.turn != nil {
			s.turn.step = nil
		}
	case eventlog.TurnEnd:
		s.openTurn(e.Turn, at)
		em.turnEnded(s, at, e)
		s.turn = nil
	case eventlog.ContextCompacted:
		em.compacted(s, env.Seq, "summary")
	case eventlog.ContextPruned:
		em.compacted(s, env.Seq, "prune")
	}
}

// openTurn is the open turn, or one opened at at if the run never saw it
// start (it cannot happen: a run starts between turns).
func (s *runState) openTurn(n int, at time.Time) *turnState {
	if s.turn == nil || s.turn.n != n {
		s.turn = &turnState{n: n, start: at, calls: map[string]time.Time{}}
	}
	return s.turn
}

// callStarted notes when a call of the open turn started: its tool/call,
// or what the loop records instead for a wait, a child or a question to a
// person, or an approval request before the tool/call.
func (s *runState) callStarted(id string, at time.Time) {
	if s.turn == nil || id == "" {
		return
	}
	if _, ok := s.turn.calls[id]; !ok {
		s.turn.calls[id] = at
	}
}

// openStep is the open step, if any.
func (s *runState) openStep() *stepState {
	if s.turn == nil {
		return nil
	}
	return s.turn.step
}
