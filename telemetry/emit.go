package telemetry

import (
	"context"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/log"

	"github.com/tetherdev/tether/eventlog"
)

// emitter emits what recorded events close, outside replay; a nil emitter
// (replay) emits nothing.
type emitter struct {
	t   *Telemetry
	log log.Logger
}

// span is a finished span of a turn, emitted whole when its end is recorded.
type span struct {
	name       string
	kind       trace.SpanKind
	turn       int
	id, parent trace.SpanID // parent is zero for the turn itself
	start, end time.Time
	attrs      []attribute.KeyValue
	links      []trace.Link
	failed     string // the status of a failed span: a kind, never free text
}

// emit sends a span, unless this process sent it already (emitted.go).
func (em *emitter) emit(c chain, s span) {
	if em.first(c, s) {
		em.send(c, s)
	}
}

// first reports whether s was not emitted yet, and remembers it.
func (em *emitter) first(c chain, s span) bool {
	return em.t.emitted.first(c.traceID(s.turn), s.id)
}

func (em *emitter) send(c chain, s span) {
	if em.t.tracer == nil {
		return
	}
	ctx := withIDs(context.Background(), c.traceID(s.turn), s.id)
	if s.parent.IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, c.spanContext(s.turn, s.parent))
	}
	_, sp := em.t.tracer.Start(ctx, s.name, trace.WithTimestamp(s.start), trace.WithSpanKind(s.kind),
		trace.WithAttributes(s.attrs...), trace.WithLinks(s.links...))
	if s.failed != "" {
		sp.SetStatus(codes.Error, s.failed)
	}
	sp.End(trace.WithTimestamp(s.end))
}

func (em *emitter) count(c metric.Int64Counter, attrs ...attribute.KeyValue) {
	c.Add(context.Background(), 1, metric.WithAttributes(attrs...))
}

// once reports whether the event named by turn and parts is seen for the
// first time by this worker, and remembers it: what a retried workflow
// task records again is not counted again (emitted.go).
func (em *emitter) once(c chain, turn int, parts ...string) bool {
	return em.t.emitted.first(c.traceID(turn), c.spanID(turn, parts...))
}

func (em *emitter) turnStarted(s *runState) {
	if em == nil || !em.once(s.ids, s.turn.n, "turn-started") {
		return
	}
	if s.turn.retryOf > 0 {
		em.count(em.t.metrics.retryTurns)
	}
	em.log.Info("Turn started", "agent", s.agent, "run", s.run, "turn", s.turn.n, "retry_of", s.turn.retryOf)
}

func (em *emitter) stepStarted(s *runState, turn, step int) {
	if em != nil && em.once(s.ids, turn, "step-started", strconv.Itoa(step)) {
		em.count(em.t.metrics.steps)
	}
}

// compacted counts a compaction, recorded at log position seq.
func (em *emitter) compacted(s *runState, seq int64, kind string) {
	if em != nil && em.once(s.ids, 0, "compacted", strconv.FormatInt(seq, 10)) {
		em.count(em.t.metrics.compactions, attribute.String("kind", kind))
	}
}

func (em *emitter) turnEnded(s *runState, at time.Time, e eventlog.TurnEnd) {
	if em == nil {
		return
	}
	t := s.turn
	sp := span{name: "turn", kind: trace.SpanKindInternal, turn: t.n, id: s.ids.turnSpan(t.n), start: t.start, end: at,
		attrs: []attribute.KeyValue{
			attribute.String("gen_ai.conversation.id", s.agent),
			attribute.String("tether.agent.id", s.agent), attribute.String("tether.run.id", s.run),
			attribute.Int("tether.turn", t.n), attribute.String("tether.turn.outcome", string(e.Reason)),
			attribute.Int("tether.turn.steps", t.steps),
		}}
	if t.retryOf > 0 {
		sp.attrs = append(sp.attrs, attribute.Int("tether.turn.retry_of", t.retryOf))
		sp.links = []trace.Link{{SpanContext: s.ids.spanContext(t.retryOf, s.ids.turnSpan(t.retryOf)),
			Attributes: []attribute.KeyValue{attribute.String("tether.link", "retry_of")}}}
	}
	if e.Reason == eventlog.EndFailed {
		sp.failed = string(e.Reason)
	}
	if !em.first(s.ids, sp) {
		return // a retried workflow task: counted and logged the first time
	}
	em.count(em.t.metrics.turns, attribute.String("outcome", string(e.Reason)))
	em.log.Info("Turn ended", "agent", s.agent, "run", s.run, "turn", t.n, "outcome", string(e.Reason),
		"steps", t.steps, "duration_ms", at.Sub(t.start).Milliseconds())
	em.send(s.ids, sp)
}

func (em *emitter) stepEnded(s *runState, at time.Time) {
	if em == nil || s.turn == nil || s.turn.step == nil {
		return
	}
	t, st := s.turn, s.turn.step
	attrs := []attribute.KeyValue{attribute.Int("tether.turn", t.n), attribute.Int("tether.step", st.n)}
	if st.provider != "" {
		attrs = append(attrs, attribute.String("tether.provider", st.provider))
	}
	if st.model != "" {
		attrs = append(attrs, attribute.String("tether.model", st.model))
	}
	em.emit(s.ids, span{name: "step", kind: trace.SpanKindInternal, turn: t.n,
		id: s.ids.stepSpan(t.n, st.n), parent: s.ids.turnSpan(t.n), start: st.start, end: at, attrs: attrs})
}
