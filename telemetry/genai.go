package telemetry

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/tetherdev/tether/eventlog"
)

// modelCalled emits the "chat {model}" span of the open step's model call,
// with the GenAI semantic convention attributes; failure is nil for a call
// that answered.
func (em *emitter) modelCalled(s *runState, at time.Time, m eventlog.AssistantMessage, failure *eventlog.Failure) {
	if em == nil || s.turn == nil || s.turn.step == nil {
		return
	}
	t, st := s.turn, s.turn.step
	provider := first(m.Provider, st.provider, s.header.Provider)
	model := first(st.model, s.header.Model, m.Model)
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.system", provider), attribute.String("gen_ai.provider.name", provider),
		attribute.String("gen_ai.request.model", model),
		attribute.String("gen_ai.conversation.id", s.agent),
		attribute.Int("tether.turn", t.n), attribute.Int("tether.step", st.n),
	}
	if s.header.MaxTokens > 0 {
		attrs = append(attrs, attribute.Int("gen_ai.request.max_tokens", s.header.MaxTokens))
	}
	if !st.requestAt.IsZero() {
		attrs = append(attrs, attribute.Int("tether.request.messages", st.messages),
			attribute.Int("tether.request.context_tokens", st.tokens))
	}
	if m.Stream != nil {
		attrs = append(attrs, attribute.Int64("tether.stream.ms", m.Stream.Ms), attribute.Int("tether.stream.chunks", m.Stream.Chunks))
		if m.Stream.FirstMs > 0 {
			attrs = append(attrs, attribute.Int64("tether.stream.first_chunk_ms", m.Stream.FirstMs))
		}
	}
	sp := span{kind: trace.SpanKindClient, turn: t.n, id: s.ids.chatSpan(t.n, st.n), parent: s.ids.stepSpan(t.n, st.n),
		start: first(st.requestAt, st.start), end: at}
	if failure == nil {
		attrs = append(attrs, attribute.String("gen_ai.response.model", m.Model),
			attribute.Int64("gen_ai.usage.input_tokens", m.Usage.InputTokens),
			attribute.Int64("gen_ai.usage.output_tokens", m.Usage.OutputTokens),
			attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(m.FinishReason)}),
			attribute.Int("tether.response.tool_calls", len(m.ToolCalls)))
	} else {
		attrs = append(attrs, attribute.String("error.type", string(failure.Kind)))
		if failure.StatusCode != 0 {
			attrs = append(attrs, attribute.Int("http.response.status_code", failure.StatusCode))
		}
		sp.failed = string(failure.Kind)
	}
	sp.name, sp.attrs = "chat "+model, attrs
	if model == "" {
		sp.name = "chat"
	}
	em.emit(s.ids, sp)
}

// toolDone counts a committed tool result and emits its "execute_tool
// {name}" span, from the call's start (or its result, for a call that never
// started: denied, unavailable, canceled before it ran).
func (em *emitter) toolDone(s *runState, at time.Time, r eventlog.ToolResult) {
	if em == nil {
		return
	}
	outcome := toolOutcome(r)
	if s.turn == nil {
		em.count(em.t.metrics.toolCalls, attribute.String("tool", r.Name), attribute.String("outcome", outcome))
		return
	}
	t, step := s.turn, 0
	parent := s.ids.turnSpan(t.n)
	if t.step != nil {
		step, parent = t.step.n, s.ids.stepSpan(t.n, t.step.n)
	}
	start, ok := t.calls[r.CallID]
	if !ok {
		start = at
	}
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", r.Name), attribute.String("gen_ai.tool.call.id", r.CallID),
		attribute.String("gen_ai.tool.type", "function"),
		attribute.String("tether.tool.outcome", outcome),
		attribute.Int("tether.turn", t.n), attribute.Int("tether.step", step),
	}
	if r.ConcludesTurn {
		attrs = append(attrs, attribute.Bool("tether.tool.concludes_turn", true))
	}
	sp := span{name: "execute_tool " + r.Name, kind: trace.SpanKindInternal, turn: t.n,
		id: s.ids.toolSpan(t.n, step, r.CallID), parent: parent, start: start, end: at}
	if r.IsError {
		attrs = append(attrs, attribute.String("error.type", outcome))
		sp.failed = outcome
	}
	sp.attrs = attrs
	if !em.first(s.ids, sp) {
		return // a retried workflow task: counted the first time
	}
	em.count(em.t.metrics.toolCalls, attribute.String("tool", r.Name), attribute.String("outcome", outcome))
	em.send(s.ids, sp)
}

// toolOutcome is ok, error (the tool answered with an error), or the
// outcome the loop gave a call the tool did not answer.
func toolOutcome(r eventlog.ToolResult) string {
	switch {
	case r.Outcome != "":
		return string(r.Outcome)
	case r.IsError:
		return "error"
	default:
		return "ok"
	}
}

// first is the first of vs that is not the zero value.
func first[T comparable](vs ...T) T {
	var zero T
	for _, v := range vs {
		if v != zero {
			return v
		}
	}
	return zero
}
