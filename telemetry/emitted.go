package telemetry

import (
	"sync"

	"go.opentelemetry.io/otel/trace"
)

// emitted remembers the spans this process emitted last, so that one is
// not emitted twice. A workflow task whose completion the server refuses
// (its cached state went stale: a signal arrived meanwhile) runs again from
// history, and what the first attempt recorded was never committed, so the
// second attempt is not replay and records, and would emit, it all again.
// Span IDs are derived from the chain, turn and step (ids.go), so the
// second emission is the same span: the first one stands. A task retried
// by another worker process emits its spans there too, under the same IDs.
type emitted struct {
	mu   sync.Mutex
	seen map[spanKey]struct{}
	ring []spanKey // insertion order, to forget the oldest
	next int
}

type spanKey struct {
	trace trace.TraceID
	span  trace.SpanID
}

// emittedCap bounds the set: a retried task's spans are among the last few
// a worker emitted, and 16,384 keys are about 1 MiB.
const emittedCap = 1 << 14

func newEmitted(capacity int) *emitted {
	return &emitted{seen: make(map[spanKey]struct{}, capacity), ring: make([]spanKey, 0, capacity)}
}

// first reports whether the span is new, and remembers it.
func (e *emitted) first(tr trace.TraceID, sp trace.SpanID) bool {
	k := spanKey{tr, sp}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.seen[k]; ok {
		return false
	}
	if len(e.ring) < cap(e.ring) {
		e.ring = append(e.ring, k)
	} else {
		delete(e.seen, e.ring[e.next])
		e.ring[e.next] = k
		e.next = (e.next + 1) % len(e.ring)
	}
	e.seen[k] = struct{}{}
	return true
}
