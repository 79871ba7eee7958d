package tetherfx

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/server/temporaltest"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/providerfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
)

// wireFake is a local provider API that answers with recorded replies in
// the provider's real wire format: an event stream when the request asks
// for one, else the JSON body. It records each request.
type wireFake struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	path   string
	header http.Header
	body   string
}

func newWireFake(t *testing.T, dir, stream, complete string) *wireFake {
	t.Helper()
	sse, err := os.ReadFile("../../activities/" + dir + "/testdata/" + stream)
	require.NoError(t, err)
	js, err := os.ReadFile("../../activities/" + dir + "/testdata/" + complete)
	require.NoError(t, err)
	f := &wireFake{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, recorded{path: r.URL.Path, header: r.Header.Clone(), body: string(body)})
		f.mu.Unlock()
		if bytes.Contains(body, []byte(`"stream":true`)) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(sse)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(js)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *wireFake) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// divert routes requests for the official API hosts to local fakes and
// records the URL each request was addressed to: it proves where a call
// was meant to go without reaching the internet.
type divert struct {
	to   map[string]*url.URL // official host → fake
	mu   sync.Mutex
	urls []string
}

func (d *divert) RoundTrip(req *http.Request) (*http.Response, error) {
	d.mu.Lock()
	d.urls = append(d.urls, req.URL.String())
	d.mu.Unlock()
	out := req.Clone(req.Context())
	if target, ok := d.to[req.URL.Host]; ok {
		out.URL.Scheme, out.URL.Host = target.Scheme, target.Host
	}
	return http.DefaultTransport.RoundTrip(out)
}

func (d *divert) addressed() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.urls...)
}

func mustParse(t *testing.T, raw string) *url.URL {
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}

// answer starts the worker app for args and env against ts, runs one turn
// of an agent on the default provider and returns its assistant message.
func answer(t *testing.T, ts *temporaltest.TestServer, args []string, env map[string]string, extra ...fx.Option) eventlog.AssistantMessage {
	t.Helper()
	queue := "q-" + strings.ReplaceAll(t.Name(), "/", "-")
	args = append([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(), "--task-queue", queue}, args...)
	cfg, err := configfx.Load(args, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	app := fx.New(Worker(cfg, io.Discard), fx.Options(extra...))
	require.NoError(t, app.Start(ctx))
	defer func() { require.NoError(t, app.Stop(ctx)) }()

	h, err := agent.New(ts.GetDefaultClient(), queue).Create(ctx, agent.CreateOptions{
		Options: signals.AgentOptions{Hooks: []string{}}, First: "/say Paris, from the scripted model.",
	})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	evs, err := eventlog.DecodeAll(log)
	require.NoError(t, err)
	for _, e := range evs {
		if m, ok := e.(eventlog.AssistantMessage); ok {
			return m
		}
		if a, ok := e.(eventlog.AssistantAttempt); ok {
			t.Fatalf("model call failed: %+v", a.Failure)
		}
	}
	t.Fatal("no assistant message")
	return eventlog.AssistantMessage{}
}

// Issue 12: the worker app starts, constructors included, for every
// provider configuration the README documents, and the agent's model call
// reaches the endpoint that configuration names.
func TestWorkerAppStartsAndCallsTheConfiguredProvider(t *testing.T) {
	ts := testserver.New(t)
	openaiAPI := newWireFake(t, "openai", "stream_text.sse", "chat_text.json")
	anthropicAPI := newWireFake(t, "anthropic", "stream_text.sse", "messages_text.json")
	official := &divert{to: map[string]*url.URL{
		"api.openai.com": mustParse(t, openaiAPI.srv.URL), "api.anthropic.com": mustParse(t, anthropicAPI.srv.URL),
	}}
	httpClient := fx.Supply(fx.Annotate(&http.Client{Transport: official}, fx.ResultTags(`name:"`+providerfx.HTTPClientName+`"`)))

	t.Run("openai with only OPENAI_API_KEY", func(t *testing.T) {
		m := answer(t, ts, nil, map[string]string{"OPENAI_API_KEY": "sk-official"}, httpClient)
		require.Equal(t, "openai", m.Provider)
		require.Equal(t, "The capital of France is Paris.", m.Text)
		require.Contains(t, official.addressed(), "https://api.openai.com/v1/chat/completions")
		reqs := openaiAPI.requests()
		require.Len(t, reqs, 1)
		require.Equal(t, "Bearer sk-official", reqs[0].header.Get("Authorization"))
		require.Contains(t, reqs[0].body, `"model":"gpt-4o-mini"`)
	})
	t.Run("openai-compatible base URL", func(t *testing.T) {
		compatible := newWireFake(t, "openai", "stream_text.sse", "chat_text.json")
		m := answer(t, ts, []string{"--openai-base-url", compatible.srv.URL + "/v1", "--openai-model", "llama3.1"},
			map[string]string{"OPENAI_API_KEY": "sk-official"})
		require.Equal(t, "openai", m.Provider)
		require.Equal(t, "The capital of France is Paris.", m.Text)
		reqs := compatible.requests()
		require.Len(t, reqs, 1)
		require.Equal(t, "/v1/chat/completions", reqs[0].path)
		require.Empty(t, reqs[0].header.Get("Authorization"), "OPENAI_API_KEY stays with the official API")
		require.Contains(t, reqs[0].body, `"model":"llama3.1"`)
	})
	t.Run("anthropic with only ANTHROPIC_API_KEY", func(t *testing.T) {
		m := answer(t, ts, nil, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test"}, httpClient)
		require.Equal(t, "anthropic", m.Provider)
		require.Equal(t, "The capital of France is Paris.", m.Text)
		require.Contains(t, official.addressed(), "https://api.anthropic.com/v1/messages")
		reqs := anthropicAPI.requests()
		require.Len(t, reqs, 1)
		require.Equal(t, "sk-ant-test", reqs[0].header.Get("X-Api-Key"))
	})
	t.Run("no key: the scripted model", func(t *testing.T) {
		m := answer(t, ts, nil, nil, httpClient)
		require.Equal(t, "scripted", m.Provider)
		require.Equal(t, "Paris, from the scripted model.", m.Text)
	})
	require.Len(t, openaiAPI.requests(), 1, "only the openai case called OpenAI")
	require.Len(t, anthropicAPI.requests(), 1, "only the anthropic case called Anthropic")
}
