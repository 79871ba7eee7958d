package cli

import (
	"bytes"
	"context"
	"io"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// server is the embedded Temporal server with Tether's search attributes
// and a real agent worker: the scripted model, the default tools and the
// loop's own.
type server struct {
	t  *testing.T
	ts *temporaltest.TestServer
}

func newServer(t *testing.T) *server {
	t.Helper()
	s := newBareServer(t)
	s.startWorker(s.ts.GetDefaultClient())
	return s
}

// newBareServer is the server without a worker.
func newBareServer(t *testing.T) *server {
	t.Helper()
	ts := testserver.New(t)
	c := ts.GetDefaultClient()
	attrs := map[string]enumspb.IndexedValueType{}
	for name, kind := range signals.SearchAttributeKinds {
		attrs[name] = enumspb.IndexedValueType(enumspb.IndexedValueType_value["INDEXED_VALUE_TYPE_"+strings.ToUpper(kind)])
	}
	_, err := c.OperatorService().AddSearchAttributes(context.Background(), &operatorservice.AddSearchAttributesRequest{
		Namespace: ts.GetDefaultNamespace(), SearchAttributes: attrs,
	})
	require.NoError(t, err)
	return &server{t: t, ts: ts}
}

func (s *server) startWorker(c client.Client) {
	reg, err := tools.NewRegistry(append([]tools.Tool{tools.Calculator(), tools.CurrentTime(time.Now)}, tools.LoopTools()...)...)
	require.NoError(s.t, err)
	hub := stream.NewHub(stream.HubOptions{})
	hubSrv := httptest.NewServer(hub.Handler())
	s.t.Cleanup(func() { hub.Close(); hubSrv.Close() })
	reader := activities.NewLogReader(activities.WorkflowLog{Client: c}, 0)
	providers := map[string]activities.Provider{scripted.Name: scripted.Provider{}}
	model := &activities.Model{
		Streams:   activities.HubStreams{Hub: hub, BaseURL: hubSrv.URL},
		Providers: providers, DefaultProvider: scripted.Name, Tools: reg, Log: reader, HeartbeatEvery: time.Second,
	}
	tool := &activities.Tool{Runner: reg, Log: reader, HeartbeatEvery: time.Second}
	require.NoError(s.t, model.Validate())
	require.NoError(s.t, tool.Validate())
	cfg := workerfx.WorkflowConfig(workflows.Config{ModelHeartbeat: 3 * time.Second, ToolHeartbeat: 3 * time.Second}, nil, reg)
	cfg.Feeds, cfg.Snapshots = model.Streams.(activities.HubStreams), reader
	cfg.Providers = slices.Sorted(maps.Keys(providers))
	s.ts.NewWorkerWithOptions(signals.TaskQueue, func(r worker.Registry) {
		workflows.Register(r, cfg)
		activities.Register(r, model, tool)
	}, worker.Options{})
}

// result is what one starter run printed and returned.
type result struct {
	code     int
	out, err string
}

// run runs the starter's command line against the server, reading stdin
// from in (nil: none).
func (s *server) run(ctx context.Context, in io.Reader, args ...string) result {
	var out, errOut bytes.Buffer
	st := Starter{Out: &out, Err: &errOut, In: in, Dial: func(_ context.Context, o client.Options) (client.Client, error) {
		return s.ts.NewClientWithOptions(client.Options{Namespace: o.Namespace}), nil
	}}
	code := st.Run(ctx, append([]string{"--namespace", s.ts.GetDefaultNamespace()}, args...))
	return result{code: code, out: out.String(), err: errOut.String()}
}

// must runs args and requires exit code 0.
func (s *server) must(ctx context.Context, args ...string) result {
	s.t.Helper()
	r := s.run(ctx, nil, args...)
	require.Equal(s.t, 0, r.code, "starter %v\nstdout:\n%s\nstderr:\n%s", args, r.out, r.err)
	return r
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
