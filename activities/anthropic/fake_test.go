package anthropic_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/anthropic"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

var hello = llm.Request{Messages: []eventlog.Message{{Role: eventlog.RoleUser, Content: "hi"}}}

// reply is one scripted HTTP response. A body whose fixture name ends in
// .sse is served as an event stream.
type reply struct {
	status int
	header map[string]string
	body   string
	// abort drops the connection after the body instead of ending the
	// response: the client sees the stream break off.
	abort bool
}

// fakeServer speaks the Messages API wire protocol from a script and records
// what it received.
type fakeServer struct {
	URL   string
	calls atomic.Int32

	mu     sync.Mutex
	path   string
	header http.Header
	body   []byte
}

func serve(t *testing.T, r reply) *fakeServer {
	t.Helper()
	f := &fakeServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		f.record(req)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(r.body, "event:") {
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
		}
		for k, v := range r.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(r.status)
		_, _ = io.WriteString(w, r.body)
		if r.abort {
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // net/http drops the connection mid-body
		}
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

func (f *fakeServer) record(req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.path, f.header, f.body = req.URL.Path, req.Header.Clone(), body
}

func (f *fakeServer) received() (path string, header http.Header, body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.path, f.header, f.body
}

// blockingServer accepts a request, closes arrived and holds the response
// until the client goes away or the test ends. With a non-empty prefix it
// first sends that much of an event stream.
func blockingServer(t *testing.T, prefix string) (baseURL string, arrived <-chan struct{}) {
	t.Helper()
	ch, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		// Draining the body lets net/http watch the connection and cancel
		// req.Context() when the client hangs up.
		_, _ = io.Copy(io.Discard, req.Body)
		if prefix != "" {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, prefix)
			w.(http.Flusher).Flush()
		}
		once.Do(func() { close(ch) })
		select {
		case <-req.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: cleanups are LIFO
	return srv.URL, ch
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return string(b)
}

// bodyOf reads a fixture, or returns a literal body (JSON or an event stream).
func bodyOf(t *testing.T, s string) string {
	t.Helper()
	if strings.HasPrefix(s, "{") || strings.HasPrefix(s, "event:") {
		return s
	}
	return fixture(t, s)
}

func newProvider(t *testing.T, cfg anthropic.Config) *anthropic.Provider {
	t.Helper()
	p, err := anthropic.New(cfg)
	require.NoError(t, err)
	return p
}

// call is Complete or Stream, so one table can prove both.
type call struct {
	name string
	do   func(p *anthropic.Provider, ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error)
}

var bothCalls = []call{
	{"complete", func(p *anthropic.Provider, ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
		return p.Complete(ctx, req)
	}},
	{"stream", func(p *anthropic.Provider, ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
		return p.Stream(ctx, req, nil)
	}},
}

// requireFailure asserts err is an *llm.Error (not merely wrapping one) and
// returns its failure.
func requireFailure(t *testing.T, err error) eventlog.Failure {
	t.Helper()
	require.IsType(t, &llm.Error{}, err)
	lerr, _ := llm.AsError(err)
	return lerr.Failure
}
