package console

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
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
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// testToken is the operator token of consoles that may act.
const testToken = "test-operator-token-0123456789"

// env is an embedded Temporal server with Tether's search attributes, a
// worker and a console serving over HTTP.
type env struct {
	t      *testing.T
	ts     *temporaltest.TestServer
	c      client.Client
	agents *agent.Client
	gate   *gate
	hub    *stream.Hub
	hubURL string
	w      worker.Worker
	srv    *Server
	web    *httptest.Server
}

type envOptions struct {
	console   Options
	wordDelay time.Duration // the scripted model's pace
	noWorker  bool
}

func newEnv(t *testing.T, o envOptions) *env {
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
	e := &env{t: t, ts: ts, c: c, agents: agent.New(c, signals.TaskQueue), gate: newGate(t)}
	if !o.noWorker {
		e.startWorker(o.wordDelay)
	}
	o.console.Client, o.console.Namespace = c, ts.GetDefaultNamespace()
	if o.console.QueryTimeout == 0 {
		o.console.QueryTimeout = 2 * time.Second
	}
	e.srv, err = New(o.console)
	require.NoError(t, err)
	e.web = httptest.NewServer(e.srv.Handler())
	t.Cleanup(func() { e.srv.Close(); e.web.Close() })
	return e
}

// startWorker runs the agent worker: the scripted model at wordDelay a
// word, the calculator, an echo tool, the gate and the loop's own tools
// (spawn_agent, ask_human, wait).
func (e *env) startWorker(wordDelay time.Duration) {
	e.t.Helper()
	reg, err := tools.NewRegistry(append([]tools.Tool{tools.Calculator(), echoTool(), e.gate.tool(), e.gate.progressTool()}, tools.LoopTools()...)...)
	require.NoError(e.t, err)
	e.hub = stream.NewHub(stream.HubOptions{})
	hubSrv := httptest.NewServer(e.hub.Handler())
	e.t.Cleanup(func() { e.hub.Close(); hubSrv.Close() })
	e.hubURL = hubSrv.URL
	reader := activities.NewLogReader(activities.WorkflowLog{Client: e.c}, 0)
	model := &activities.Model{
		Streams:         activities.HubStreams{Hub: e.hub, BaseURL: hubSrv.URL},
		Providers:       map[string]activities.Provider{scripted.Name: scripted.Provider{WordDelay: wordDelay}},
		DefaultProvider: scripted.Name, Tools: reg, Log: reader, HeartbeatEvery: time.Second,
	}
	tool := &activities.Tool{Runner: reg, Log: reader, HeartbeatEvery: time.Second}
	require.NoError(e.t, model.Validate())
	require.NoError(e.t, tool.Validate())
	// As workerfx wires it: the workflow names the worker's feed (live
	// tokens) and publishes its log to the activities.
	cfg := workerfx.WorkflowConfig(workflows.Config{ModelHeartbeat: 3 * time.Second, ToolHeartbeat: 3 * time.Second}, nil, reg)
	cfg.Feeds, cfg.Snapshots = model.Streams.(activities.HubStreams), reader
	cfg.Providers = []string{scripted.Name}
	e.w = e.ts.NewWorkerWithOptions(signals.TaskQueue, func(r worker.Registry) {
		workflows.Register(r, cfg)
		activities.Register(r, model, tool)
	}, worker.Options{})
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// create starts an agent and returns its handle.
func (e *env) create(ctx context.Context, id, first string, opts signals.AgentOptions) *agent.Handle {
	e.t.Helper()
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: id, Options: opts, First: first})
	require.NoError(e.t, err)
	return h
}

// idle creates an agent and waits for its first turn to end.
func (e *env) idle(ctx context.Context, id, first string, opts signals.AgentOptions) *agent.Handle {
	e.t.Helper()
	h := e.create(ctx, id, first, opts)
	_, err := h.WaitIdle(ctx)
	require.NoError(e.t, err)
	return h
}

// response is a read HTTP response.
type response struct {
	Status int
	Header http.Header
	Body   string
}

// JSON decodes the body.
func (r response) JSON(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Body), &v), r.Body)
	return v
}

// do sends a request to the console; hdr adds headers ("Authorization",
// "Accept", ...). It does not follow redirects.
func (e *env) do(method, path string, form url.Values, hdr map[string]string, jar http.CookieJar) response {
	e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, e.web.URL+path, body)
	require.NoError(e.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(e.t, err)
	return response{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}
}

func (e *env) get(path string) response { return e.do(http.MethodGet, path, nil, nil, nil) }

// act posts an action as an operator with the bearer token, asking JSON.
func (e *env) act(path string, form url.Values) response {
	return e.do(http.MethodPost, path, form, map[string]string{"Authorization": "Bearer " + testToken, "Accept": "application/json"}, nil)
}

// login logs a cookie jar in and returns it with the session's CSRF token.
func (e *env) login() (http.CookieJar, string) {
	e.t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(e.t, err)
	r := e.do(http.MethodPost, "/login", url.Values{"token": {testToken}, "next": {"/agents"}}, nil, jar)
	require.Equal(e.t, http.StatusSeeOther, r.Status, r.Body)
	page := e.do(http.MethodGet, "/agents", nil, nil, jar)
	i := strings.Index(page.Body, `name="csrf" value="`)
	require.Positive(e.t, i, "the operator's page carries a CSRF token")
	rest := page.Body[i+len(`name="csrf" value="`):]
	return jar, rest[:strings.Index(rest, `"`)]
}

// sse is one Server-Sent Event as a test reads it.
type sse struct {
	Event, ID, Data string
}

// stream opens an agent's event stream; events arrive on the channel until
// ctx ends or the stream does.
func (e *env) stream(ctx context.Context, id string, hdr map[string]string, query string) <-chan sse {
	e.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.web.URL+"/agents/"+url.PathEscape(id)+"/events"+query, nil)
	require.NoError(e.t, err)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	require.Equal(e.t, http.StatusOK, resp.StatusCode)
	out := make(chan sse, 1024)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 4<<20)
		var ev sse
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Event != "" {
					out <- ev
				}
				ev = sse{}
			case strings.HasPrefix(line, "event: "):
				ev.Event = line[len("event: "):]
			case strings.HasPrefix(line, "id: "):
				ev.ID = line[len("id: "):]
			case strings.HasPrefix(line, "data: "):
				ev.Data = line[len("data: "):]
			}
		}
	}()
	return out
}

// until reads events until one satisfies ok, returning all read.
func until(t *testing.T, ctx context.Context, events <-chan sse, ok func(sse) bool) []sse {
	t.Helper()
	var got []sse
	for {
		select {
		case ev, open := <-events:
			if !open {
				t.Fatalf("the stream ended first; got %v", kindsOf(got))
			}
			got = append(got, ev)
			if ok(ev) {
				return got
			}
		case <-ctx.Done():
			t.Fatalf("timed out; got %v", kindsOf(got))
		}
	}
}

func kindsOf(evs []sse) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Event+"#"+ev.ID)
	}
	return out
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

// gate is a tool that holds every call until the test lets it through, so
// a turn stays open as long as a test needs.
type gate struct {
	started chan string
	pass    chan struct{}
	step    chan struct{} // the progress gate's next step (progress_test.go)
}

func newGate(t *testing.T) *gate {
	g := &gate{started: make(chan string, 16), pass: make(chan struct{}), step: make(chan struct{})}
	t.Cleanup(func() { close(g.pass) })
	return g
}

func (g *gate) tool() tools.Tool {
	return tools.Tool{
		Name: "gate", Description: "Wait until the test opens the gate.",
		Run: func(ctx context.Context, c tools.Call) (tools.Result, error) {
			select {
			case g.started <- c.IdempotencyKey:
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			}
			select {
			case <-g.pass:
				return tools.Result{Content: "gate passed"}, nil
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			}
		},
	}
}

func (g *gate) waitStarted(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-g.started:
	case <-ctx.Done():
		t.Fatal("no tool call reached the gate")
	}
}

// running starts an agent whose turn holds at the gate.
func (e *env) running(ctx context.Context, id string) *agent.Handle {
	e.t.Helper()
	h := e.create(ctx, id, "/tool gate {}", signals.AgentOptions{Tools: []string{"gate"}})
	e.gate.waitStarted(e.t, ctx)
	return h
}
