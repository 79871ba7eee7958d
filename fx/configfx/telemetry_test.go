package configfx

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTelemetryIsOffByDefaultAndFollowsOpenTelemetrysVariables(t *testing.T) {
	cfg, err := Load(nil, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, TelemetryConfig{OTLPProtocol: OTLPHTTP}, cfg.Telemetry, "no spans, no metrics endpoint")

	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
	cfg, err = Load([]string{"--metrics-addr", "127.0.0.1:9464"}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, TelemetryConfig{OTLPEndpoint: "http://collector:4317", OTLPProtocol: OTLPGRPC, MetricsAddr: "127.0.0.1:9464"}, cfg.Telemetry)

	cfg, err = Load([]string{"--otlp-endpoint", "https://otlp.example.com", "--otlp-protocol", "http/protobuf"},
		func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "https://otlp.example.com", cfg.Telemetry.OTLPEndpoint, "flags win over the variables")
	require.Equal(t, OTLPHTTP, cfg.Telemetry.OTLPProtocol)
}

func TestLoadRejectsBadTelemetryConfiguration(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"endpoint without scheme": {[]string{"--otlp-endpoint", "collector:4317"}, `--otlp-endpoint "collector:4317" is not an http(s) URL`},
		"unknown protocol":        {[]string{"--otlp-protocol", "http/json"}, `--otlp-protocol "http/json": use http/protobuf or grpc`},
		"metrics address no port": {[]string{"--metrics-addr", "localhost"}, "--metrics-addr must be host:port"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Load(tc.args, func(string) string { return "" }, io.Discard)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
