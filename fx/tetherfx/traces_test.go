package tetherfx

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"go.temporal.io/server/temporaltest"
	"go.uber.org/fx"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
)

// collector is a fake OTLP collector, over HTTP (ServeHTTP) and gRPC
// (Export): it keeps the names of the spans it receives and the services
// they came from.
type collector struct {
	v1.UnimplementedTraceServiceServer
	mu       sync.Mutex
	names    []string
	services map[string]bool
	auth     string // the Authorization header of the last HTTP export
}

func (c *collector) Export(_ context.Context, req *v1.ExportTraceServiceRequest) (*v1.ExportTraceServiceResponse, error) {
	c.keep(req)
	return &v1.ExportTraceServiceResponse{}, nil
}

func (c *collector) keep(req *v1.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				c.services[kv.GetValue().GetStringValue()] = true
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.names = append(c.names, s.GetName())
			}
		}
	}
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body := io.Reader(r.Body)
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	raw, err := io.ReadAll(body)
	var req v1.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(raw, &req)
	}
	if r.URL.Path != "/v1/traces" || err != nil {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	c.keep(&req)
	c.mu.Lock()
	c.auth = r.Header.Get("Authorization")
	c.mu.Unlock()
	out, _ := proto.Marshal(&v1.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// The started worker sends a turn's spans to --otlp-endpoint, over
// OTLP/HTTP by default and over gRPC with --otlp-protocol grpc, at the
// latest when it stops. The exporter reads OpenTelemetry's other variables
// (headers here) and the resource OTEL_SERVICE_NAME.
func TestTheWorkerExportsATurnsSpansToTheOTLPEndpoint(t *testing.T) {
	ts := testserver.New(t)
	t.Run("http/protobuf", func(t *testing.T) {
		otlp := &collector{services: map[string]bool{}}
		srv := httptest.NewServer(otlp)
		defer srv.Close()
		t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20collector-token")
		traceATurn(t, ts, otlp, "--otlp-endpoint", srv.URL)
		require.Equal(t, map[string]bool{"tether-worker": true}, otlp.services)
		require.Equal(t, "Bearer collector-token", otlp.auth)
	})
	t.Run("grpc", func(t *testing.T) {
		otlp := &collector{services: map[string]bool{}}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		srv := grpc.NewServer()
		v1.RegisterTraceServiceServer(srv, otlp)
		go func() { _ = srv.Serve(ln) }()
		defer srv.Stop()
		t.Setenv("OTEL_SERVICE_NAME", "tether-eu")
		traceATurn(t, ts, otlp, "--otlp-endpoint", "http://"+ln.Addr().String(), "--otlp-protocol", "grpc")
		require.Equal(t, map[string]bool{"tether-eu": true}, otlp.services)
	})
}

// traceATurn runs one turn with a tool call on a worker app started with
// args, stops the app and checks the spans otlp received.
func traceATurn(t *testing.T, ts *temporaltest.TestServer, otlp *collector, args ...string) {
	queue := "q-" + strings.ReplaceAll(t.Name(), "/", "-")
	cfg, err := configfx.Load(append([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(),
		"--task-queue", queue}, args...), func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	app := fx.New(Worker(cfg, io.Discard))
	require.NoError(t, app.Start(ctx))

	h, err := agent.New(ts.GetDefaultClient(), queue).Create(ctx, agent.CreateOptions{
		Options: signals.AgentOptions{Hooks: []string{}, Tools: []string{"calculate"}}, First: `/tool calculate {"expression":"6*7"}`})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	require.NoError(t, app.Stop(ctx))

	otlp.mu.Lock()
	defer otlp.mu.Unlock()
	require.Subset(t, otlp.names, []string{"turn", "step", "chat scripted-demo", "execute_tool calculate",
		"StartActivity:" + signals.ModelActivity, "RunActivity:" + signals.ModelActivity})
}
