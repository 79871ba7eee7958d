package configfx

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
)

// OTLP protocols the worker exports spans with.
const (
	OTLPGRPC = "grpc"
	OTLPHTTP = "http/protobuf"
)

// TelemetryConfig says where the worker sends traces and serves metrics;
// both are off by default.
type TelemetryConfig struct {
	// OTLPEndpoint is the base URL of an OTLP collector
	// (http://localhost:4318); empty sends no spans.
	OTLPEndpoint string
	// OTLPProtocol is OTLPHTTP (the OpenTelemetry default) or OTLPGRPC.
	OTLPProtocol string
	// MetricsAddr is where the worker serves Prometheus metrics at
	// /metrics; empty serves none.
	MetricsAddr string
}

// telemetryFlags declares the telemetry flags; their defaults come from
// OpenTelemetry's own variables.
func telemetryFlags(fs *flag.FlagSet, c *TelemetryConfig, env func(string) string) {
	fs.StringVar(&c.OTLPEndpoint, "otlp-endpoint", env("OTEL_EXPORTER_OTLP_ENDPOINT"),
		"base URL of the OTLP collector to send traces to, e.g. http://localhost:4318 (empty: no tracing)")
	fs.StringVar(&c.OTLPProtocol, "otlp-protocol", envOr(env, "OTEL_EXPORTER_OTLP_PROTOCOL", OTLPHTTP),
		"OTLP protocol: http/protobuf or grpc")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", "", "address serving Prometheus metrics at /metrics, e.g. 127.0.0.1:9464 (empty: none)")
}

func (c TelemetryConfig) validate() []error {
	var errs []error
	if c.OTLPEndpoint != "" {
		u, err := url.Parse(c.OTLPEndpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("--otlp-endpoint %q is not an http(s) URL such as http://localhost:4318", c.OTLPEndpoint))
		}
	}
	if c.OTLPProtocol != OTLPHTTP && c.OTLPProtocol != OTLPGRPC {
		errs = append(errs, fmt.Errorf("--otlp-protocol %q: use %s or %s", c.OTLPProtocol, OTLPHTTP, OTLPGRPC))
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			errs = append(errs, errors.New("--metrics-addr must be host:port, e.g. 127.0.0.1:9464"))
		}
	}
	return errs
}
