package telemetry

import (
	"errors"

	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
)

// instruments are Tether's metrics. Prometheus names add _total to counters
// and _seconds to durations: tether_turns_total, tether_model_call_duration_seconds.
type instruments struct {
	turns       metric.Int64Counter // by outcome: the turn/end reason
	retryTurns  metric.Int64Counter
	steps       metric.Int64Counter
	compactions metric.Int64Counter // by kind: summary, prune
	toolCalls   metric.Int64Counter // by tool and outcome
	tokens      metric.Int64Counter // by provider, model and type (input, output)
	modelCall   metric.Float64Histogram
	toolCall    metric.Float64Histogram
	cached      metric.Int64UpDownCounter
}

// SecondsBuckets are the bucket bounds of every duration in seconds, the
// SDK's timers included: tool calls take milliseconds, model calls minutes.
var SecondsBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}

func newInstruments(m metric.Meter) (instruments, error) {
	var errs []error
	counter := func(name, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	seconds := func(name, desc string) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithDescription(desc), metric.WithUnit("s"),
			metric.WithExplicitBucketBoundaries(SecondsBuckets...))
		errs = append(errs, err)
		return h
	}
	i := instruments{
		turns:       counter("tether.turns", "Turns ended, by outcome (the turn/end reason)."),
		retryTurns:  counter("tether.retry_turns", "Retry turns opened."),
		steps:       counter("tether.steps", "Steps started."),
		compactions: counter("tether.compactions", "Context compactions, by kind (summary, prune)."),
		toolCalls:   counter("tether.tool.calls", "Tool calls committed, by tool and outcome (ok, error, denied, ...)."),
		tokens:      counter("tether.model.tokens", "Tokens of model calls, by provider, model and type (input, output)."),
		modelCall:   seconds("tether.model.call.duration", "Model call attempts, by provider, model and outcome."),
		toolCall:    seconds("tether.tool.duration", "Tool call attempts, by tool and outcome."),
	}
	var err error
	i.cached, err = m.Int64UpDownCounter("tether.agents.cached", metric.WithDescription("Agent runs this worker holds in memory."))
	return i, errors.Join(append(errs, err)...)
}

// NewMeterProvider is a meter provider for reader whose histograms in
// seconds use SecondsBuckets (OpenTelemetry's default buckets are meant
// for milliseconds).
func NewMeterProvider(reader sdkmetric.Reader, res *resource.Resource) *sdkmetric.MeterProvider {
	opts := []sdkmetric.Option{
		sdkmetric.WithReader(reader),
		sdkmetric.WithView(sdkmetric.NewView(
			sdkmetric.Instrument{Kind: sdkmetric.InstrumentKindHistogram, Unit: "s"},
			sdkmetric.Stream{Aggregation: sdkmetric.AggregationExplicitBucketHistogram{Boundaries: SecondsBuckets}},
		)),
	}
	if res != nil {
		opts = append(opts, sdkmetric.WithResource(res))
	}
	return sdkmetric.NewMeterProvider(opts...)
}
