// Package telemetryfx gives the worker its observability (package
// telemetry): logs with agent, run, turn and step always; spans to an OTLP
// collector with --otlp-endpoint; Prometheus metrics, Tether's and the
// Temporal SDK's, at /metrics on --metrics-addr.
package telemetryfx

import (
	"context"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/providerfx"
	"github.com/tetherdev/tether/fx/temporalfx"
	"github.com/tetherdev/tether/telemetry"
	"github.com/tetherdev/tether/workflows"
)

// Module provides the telemetry, the client's instrumentation and the
// agent workflow's observer.
var Module = fx.Module("telemetry", fx.Provide(New))

// ServiceName is the service.name of the worker's spans and metrics unless
// OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise.
const ServiceName = "tether-worker"

// Params are New's dependencies.
type Params struct {
	fx.In
	Config    configfx.TelemetryConfig
	Providers providerfx.Providers
	Lifecycle fx.Lifecycle
	Logger    *slog.Logger
}

// Result is what New provides.
type Result struct {
	fx.Out
	Telemetry       *telemetry.Telemetry
	Instrumentation temporalfx.Instrumentation
	Observer        workflows.Observer
	Metrics         MetricsEndpoint
}

// New builds the exporters the configuration asks for; the metrics address
// is bound here, so a taken port stops the worker before it starts.
func New(p Params) (Result, error) {
	res, err := resource.New(context.Background(), resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", ServiceName)), resource.WithFromEnv())
	if err != nil {
		return Result{}, err
	}
	opts := telemetry.Options{Resource: res, DefaultProvider: p.Providers.Default, Logger: p.Logger}
	if opts.SpanExporter, err = spanExporter(p.Config); err != nil {
		return Result{}, err
	}
	metrics, err := serveMetrics(p.Config.MetricsAddr, res, p.Lifecycle, p.Logger)
	if err != nil {
		return Result{}, err
	}
	if metrics != nil {
		opts.MeterProvider = metrics.provider
	}
	tel, err := telemetry.New(opts)
	if err != nil {
		return Result{}, err
	}
	p.Lifecycle.Append(fx.StopHook(tel.Shutdown))
	if p.Config.OTLPEndpoint != "" {
		p.Lifecycle.Append(fx.StartHook(func() {
			p.Logger.Info("Exporting traces", "endpoint", p.Config.OTLPEndpoint, "protocol", p.Config.OTLPProtocol)
		}))
	}
	return Result{
		Telemetry: tel, Observer: tel.Observer(), Metrics: metrics.endpoint(),
		Instrumentation: temporalfx.Instrumentation{Interceptors: tel.ClientInterceptors(), MetricsHandler: tel.MetricsHandler()},
	}, nil
}

// spanExporter is the OTLP exporter of c, or nil without an endpoint. The
// exporter reads its other settings (headers, certificates, timeout) from
// the OTEL_EXPORTER_OTLP_* variables itself; it connects lazily.
func spanExporter(c configfx.TelemetryConfig) (sdktrace.SpanExporter, error) {
	switch {
	case c.OTLPEndpoint == "":
		return nil, nil
	case c.OTLPProtocol == configfx.OTLPGRPC:
		return otlptracegrpc.New(context.Background(), otlptracegrpc.WithEndpointURL(c.OTLPEndpoint))
	default:
		return otlptracehttp.New(context.Background(),
			otlptracehttp.WithEndpointURL(strings.TrimSuffix(c.OTLPEndpoint, "/")+"/v1/traces"))
	}
}
