package openai_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/openai"
)

// reply is one scripted HTTP response.
type reply struct {
	status int
	header map[string]string
	body   string
}

// fakeServer speaks the chat completions wire protocol from a script and
// records what it received.
type fakeServer struct {
	URL   string // base URL including /v1
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
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		for k, v := range r.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(r.status)
		_, _ = io.WriteString(w, r.body)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL + "/v1"
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
// until the client goes away or the test ends.
func blockingServer(t *testing.T) (baseURL string, arrived <-chan struct{}) {
	t.Helper()
	ch, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		// Draining the body lets net/http watch the connection and cancel
		// req.Context() when the client hangs up.
		_, _ = io.Copy(io.Discard, req.Body)
		once.Do(func() { close(ch) })
		select {
		case <-req.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: cleanups are LIFO
	return srv.URL + "/v1", ch
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return string(b)
}

func newProvider(t *testing.T, cfg openai.Config) *openai.Provider {
	t.Helper()
	p, err := openai.New(cfg)
	require.NoError(t, err)
	return p
}
