package telemetry

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"strconv"

	"go.opentelemetry.io/otel/trace"
)

// chain names one agent's chain of runs for IDs: namespace, workflow ID and
// the chain's first run ID, which Continue-As-New keeps. An agent ID used
// again after its agent ended starts a new chain, so its turns get new IDs.
type chain string

func newChain(namespace, workflowID, firstRunID string) chain {
	return chain(namespace + "\x00" + workflowID + "\x00" + firstRunID)
}

// traceID is turn's trace: every span of the turn belongs to it.
func (c chain) traceID(turn int) trace.TraceID {
	var id trace.TraceID
	h := sha256.Sum256([]byte(string(c) + "\x00turn\x00" + strconv.Itoa(turn)))
	copy(id[:], h[:])
	if !id.IsValid() {
		id[15] = 1
	}
	return id
}

// spanID names a span of turn by its parts, e.g. ("step", "2").
func (c chain) spanID(turn int, parts ...string) trace.SpanID {
	s := string(c) + "\x00span\x00" + strconv.Itoa(turn)
	for _, p := range parts {
		s += "\x00" + p
	}
	var id trace.SpanID
	h := sha256.Sum256([]byte(s))
	copy(id[:], h[:])
	if !id.IsValid() {
		id[7] = 1
	}
	return id
}

// The spans of a turn.
func (c chain) turnSpan(turn int) trace.SpanID { return c.spanID(turn, "turn") }
func (c chain) stepSpan(turn, step int) trace.SpanID {
	return c.spanID(turn, "step", strconv.Itoa(step))
}
func (c chain) chatSpan(turn, step int) trace.SpanID {
	return c.spanID(turn, "chat", strconv.Itoa(step))
}
func (c chain) toolSpan(turn, step int, callID string) trace.SpanID {
	return c.spanID(turn, "tool", strconv.Itoa(step), callID)
}

// spanContext is the context of a span of turn, for parents and links.
func (c chain) spanContext(turn int, span trace.SpanID) trace.SpanContext {
	return trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: c.traceID(turn), SpanID: span, TraceFlags: trace.FlagsSampled,
	})
}

// idKey carries the IDs the next span must have (withIDs).
type idKey struct{}

type wantIDs struct {
	trace trace.TraceID
	span  trace.SpanID
}

// withIDs asks idGenerator for these IDs for the span started with ctx.
func withIDs(ctx context.Context, t trace.TraceID, s trace.SpanID) context.Context {
	return context.WithValue(ctx, idKey{}, wantIDs{trace: t, span: s})
}

// idGenerator gives a span the IDs withIDs asked for, and random ones to
// every other span (the SDK's activity, signal and query spans).
type idGenerator struct{}

func (idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if w, ok := ctx.Value(idKey{}).(wantIDs); ok && w.trace.IsValid() && w.span.IsValid() {
		return w.trace, w.span
	}
	var t trace.TraceID
	for !t.IsValid() {
		binary.BigEndian.PutUint64(t[:8], rand.Uint64())
		binary.BigEndian.PutUint64(t[8:], rand.Uint64())
	}
	return t, randomSpanID()
}

func (idGenerator) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	if w, ok := ctx.Value(idKey{}).(wantIDs); ok && w.span.IsValid() {
		return w.span
	}
	return randomSpanID()
}

func randomSpanID() trace.SpanID {
	var s trace.SpanID
	for !s.IsValid() {
		binary.BigEndian.PutUint64(s[:], rand.Uint64())
	}
	return s
}
