package telemetryfx

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/internal/httpserve"
	"github.com/tetherdev/tether/telemetry"
)

// MetricsEndpoint is where the worker serves its metrics; URL is empty when
// it serves none.
type MetricsEndpoint struct{ URL string }

// metricsServer serves a registry the meter provider exports to.
type metricsServer struct {
	provider *sdkmetric.MeterProvider
	url      string
}

func (m *metricsServer) endpoint() MetricsEndpoint {
	if m == nil {
		return MetricsEndpoint{}
	}
	return MetricsEndpoint{URL: m.url}
}

// serveMetrics binds addr and serves /metrics from start to stop: Tether's
// and the SDK's metrics through the returned provider, and the Go runtime's
// and the process's. It returns nil when addr is empty.
func serveMetrics(addr string, res *resource.Resource, lc fx.Lifecycle, logger *slog.Logger) (*metricsServer, error) {
	if addr == "" {
		return nil, nil
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, err
	}
	ln, err := httpserve.Listen(addr, "metrics", "--metrics-addr")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: httpserve.ReadHeaderTimeout,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelDebug)}
	m := &metricsServer{provider: telemetry.NewMeterProvider(exporter, res), url: "http://" + ln.Addr().String() + "/metrics"}
	httpserve.Run(lc, logger, httpserve.Endpoint{
		Name: "Metrics server", Server: srv, Listener: ln,
		Started: func() { logger.Info("Serving metrics", "url", m.url) },
		Stop: func(ctx context.Context) error {
			return errors.Join(srv.Shutdown(ctx), m.provider.Shutdown(ctx))
		},
	})
	return m, nil
}
