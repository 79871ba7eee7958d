package telemetry

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// Options configure Telemetry. A signal whose field is nil is off.
type Options struct {
	// SpanExporter receives the spans (OTLP, or an in-memory exporter in
	// tests); nil turns tracing off, and with it the SDK's tracing
	// interceptor and the headers it writes into history.
	SpanExporter sdktrace.SpanExporter
	// Resource describes the worker in every span; nil is resource.Default().
	Resource *resource.Resource
	// MeterProvider takes Tether's metrics and the SDK's (MetricsHandler);
	// nil turns metrics off. Its owner shuts it down.
	MeterProvider metric.MeterProvider
	// DefaultProvider names the provider of model calls that name none.
	DefaultProvider string
	// Logger reports the telemetry's own trouble (a refused metric).
	Logger *slog.Logger
}

// Telemetry traces, measures and logs the agents of a worker: install its
// interceptors on the Temporal client (or the worker, or a replayer) and
// its Observer in the agent workflow's configuration.
type Telemetry struct {
	tp        *sdktrace.TracerProvider // nil: tracing off
	tracer    trace.Tracer             // Tether's spans
	sdkTracer interceptor.Tracer       // the SDK's, to hand it parents
	tracing   interceptor.Interceptor
	metrics   instruments
	handler   client.MetricsHandler
	provider  string
	logger    *slog.Logger
	emitted   *emitted // spans emitted lately, never emitted twice
}

// sdkSpanKey is where the SDK's tracing interceptor keeps the current span
// in a workflow context.
type sdkSpanKey struct{}

// New builds the telemetry o asks for.
func New(o Options) (*Telemetry, error) {
	t := &Telemetry{provider: o.DefaultProvider, logger: o.Logger, emitted: newEmitted(emittedCap)}
	if t.logger == nil {
		t.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if err := t.newTracing(o); err != nil {
		return nil, err
	}
	mp := o.MeterProvider
	if mp == nil {
		mp = noop.NewMeterProvider()
	} else {
		t.handler = temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{
			Meter: mp.Meter("temporal-sdk-go"), UseMonotonicCounters: true,
			OnError: func(err error) { t.logger.Warn("SDK metric refused", "error", err) },
		})
	}
	var err error
	t.metrics, err = newInstruments(mp.Meter(scope))
	return t, err
}

// scope is the instrumentation scope of Tether's spans and metrics.
const scope = "github.com/tetherdev/tether/telemetry"

func (t *Telemetry) newTracing(o Options) error {
	if o.SpanExporter == nil {
		return nil
	}
	res := o.Resource
	if res == nil {
		res = resource.Default()
	}
	t.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(o.SpanExporter), sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(idGenerator{}), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	t.tracer = t.tp.Tracer(scope)
	var err error
	opts := temporalotel.TracerOptions{Tracer: t.tp.Tracer("temporal-sdk-go"), SpanContextKey: sdkSpanKey{}}
	if t.sdkTracer, err = temporalotel.NewTracer(opts); err != nil {
		return err
	}
	t.tracing = &replaySafe{tracing: interceptor.NewTracingInterceptor(t.sdkTracer)}
	return nil
}

// ClientInterceptors go in client.Options.Interceptors: they also intercept
// every worker of the client.
func (t *Telemetry) ClientInterceptors() []interceptor.ClientInterceptor {
	var out []interceptor.ClientInterceptor
	for _, i := range t.interceptors() {
		out = append(out, i)
	}
	return out
}

// WorkerInterceptors go in worker.Options.Interceptors or a replayer's, for
// a worker whose client has no ClientInterceptors.
func (t *Telemetry) WorkerInterceptors() []interceptor.WorkerInterceptor {
	var out []interceptor.WorkerInterceptor
	for _, i := range t.interceptors() {
		out = append(out, i)
	}
	return out
}

// interceptors: the SDK's tracing outermost, so Tether's workflow
// interceptor picks a call's parent span before the SDK's starts its span.
func (t *Telemetry) interceptors() []interceptor.Interceptor {
	own := &tether{t: t}
	if t.tracing == nil {
		return []interceptor.Interceptor{own}
	}
	return []interceptor.Interceptor{t.tracing, own}
}

// MetricsHandler is the SDK's metrics handler over the same meter provider
// (client.Options.MetricsHandler); nil when metrics are off.
func (t *Telemetry) MetricsHandler() client.MetricsHandler { return t.handler }

// ForceFlush exports the spans ended so far.
func (t *Telemetry) ForceFlush(ctx context.Context) error {
	if t.tp == nil {
		return nil
	}
	return t.tp.ForceFlush(ctx)
}

// Shutdown flushes and stops the tracer provider; spans ended afterwards
// are dropped.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t.tp == nil {
		return nil
	}
	return errors.Join(t.tp.ForceFlush(ctx), t.tp.Shutdown(ctx))
}
