package e2e

import (
	"context"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// env is one embedded Temporal server with Tether's search attributes.
type env struct {
	t      *testing.T
	ts     *temporaltest.TestServer
	c      client.Client
	agents *agent.Client
	cfg    workflows.Config
	// providers are registered beside the scripted model.
	providers map[string]activities.Provider
	// hub serves live model chunks at streamURL.
	hub       *stream.Hub
	streamURL string
	// interceptors intercept the workers startWorker starts.
	interceptors []interceptor.WorkerInterceptor
	// querier, when set, wraps the log query of the next workers started.
	querier func(activities.LogQuerier) activities.LogQuerier
	// noSnapshots makes the next workers' activities read the log with the
	// query only, as when the workflow runs in another process.
	noSnapshots bool
	// workerOptions are the next workers' options.
	workerOptions worker.Options
	// prefix names the histories the env records into the replay corpus.
	prefix string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ts := testserver.New(t)
	c := ts.GetDefaultClient()
	attrs := map[string]enumspb.IndexedValueType{}
	for name, kind := range signals.SearchAttributeKinds {
		attrs[name] = enumspb.IndexedValueType(enumspb.IndexedValueType_value["INDEXED_VALUE_TYPE_"+upper(kind)])
	}
	_, err := c.OperatorService().AddSearchAttributes(context.Background(), &operatorservice.AddSearchAttributesRequest{
		Namespace: ts.GetDefaultNamespace(), SearchAttributes: attrs,
	})
	require.NoError(t, err)
	return &env{t: t, ts: ts, c: c, agents: agent.New(c, signals.TaskQueue),
		cfg: workflows.Config{ModelHeartbeat: 3 * time.Second, ToolHeartbeat: 3 * time.Second}}
}

func upper(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if ch >= 'a' && ch <= 'z' {
			b[i] = ch - 32
		}
	}
	return string(b)
}

// startWorker starts a worker with the scripted model and the given tools.
func (e *env) startWorker(ts ...tools.Tool) worker.Worker {
	e.t.Helper()
	reg, err := tools.NewRegistry(append(ts, tools.LoopTools()...)...)
	require.NoError(e.t, err)
	var q activities.LogQuerier = activities.WorkflowLog{Client: e.c}
	if e.querier != nil {
		q = e.querier(q)
	}
	reader := activities.NewLogReader(q, 0)
	providers := map[string]activities.Provider{scripted.Name: scripted.Provider{}}
	for name, p := range e.providers {
		providers[name] = p
	}
	if e.hub == nil {
		e.hub = stream.NewHub(stream.HubOptions{})
		srv := httptest.NewServer(e.hub.Handler())
		e.t.Cleanup(func() { e.hub.Close(); srv.Close() })
		e.streamURL = srv.URL
	}
	model := &activities.Model{
		Streams:         activities.HubStreams{Hub: e.hub, BaseURL: e.streamURL},
		Providers:       providers,
		DefaultProvider: scripted.Name, Tools: reg, Log: reader, HeartbeatEvery: time.Second,
	}
	tool := &activities.Tool{Runner: reg, Log: reader, HeartbeatEvery: time.Second}
	require.NoError(e.t, model.Validate())
	require.NoError(e.t, tool.Validate())
	cfg := workerfx.WorkflowConfig(e.cfg, nil, reg)
	cfg.Feeds = model.Streams.(activities.HubStreams)
	if !e.noSnapshots {
		cfg.Snapshots = reader
	}
	cfg.Providers = slices.Sorted(maps.Keys(providers))
	return e.ts.NewWorkerWithOptions(signals.TaskQueue, func(r worker.Registry) {
		switch {
		case e.workerOptions.DisableWorkflowWorker:
		case e.workerOptions.DeploymentOptions.UseVersioning: // runs pinned, moved at Continue-As-New
			workflows.RegisterVersioned(r, cfg)
		default:
			workflows.Register(r, cfg)
		}
		activities.Register(r, model, tool)
	}, e.options())
}

// options are the next workers' options with the interceptors.
func (e *env) options() worker.Options {
	o := e.workerOptions
	o.Interceptors = append(slices.Clone(o.Interceptors), e.interceptors...)
	return o
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// echoTool returns its "text" argument.
func echoTool() tools.Tool {
	return tools.Tool{
		Name: "echo", Description: "Echo text back.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Run: func(_ context.Context, c tools.Call) (tools.Result, error) {
			var a struct{ Text string }
			if err := json.Unmarshal(c.Arguments, &a); err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Content: "echo: " + a.Text}, nil
		},
	}
}

// events decodes a log.
func events(t *testing.T, log []eventlog.Envelope) []eventlog.Event {
	t.Helper()
	evs, err := eventlog.DecodeAll(log)
	require.NoError(t, err)
	return evs
}

func ofType[E eventlog.Event](evs []eventlog.Event) []E {
	var out []E
	for _, e := range evs {
		if v, ok := e.(E); ok {
			out = append(out, v)
		}
	}
	return out
}
