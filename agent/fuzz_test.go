package agent_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tetherdev/tether/agent"
)

// bodies serves each registered body once, as a 200 event stream.
type bodies struct {
	mu   sync.Mutex
	next atomic.Int64
	m    map[string][]byte
}

func (b *bodies) add(body []byte) string {
	key := strconv.FormatInt(b.next.Add(1), 10)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.m[key] = body
	return key
}

func (b *bodies) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	body := b.m[r.URL.Path[1:]]
	delete(b.m, r.URL.Path[1:])
	b.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = w.Write(body)
}

// FuzzReadStream serves arbitrary bytes as a worker's event stream:
// ReadStream never panics and ends either after a terminal event or with
// one typed error (ErrMalformedStream, ErrStreamInterrupted), after which
// it yields nothing.
func FuzzReadStream(f *testing.F) {
	b := &bodies{m: map[string][]byte{}}
	srv := httptest.NewServer(b)
	f.Cleanup(srv.Close)
	f.Fuzz(func(t *testing.T, body []byte) {
		url := srv.URL + "/" + b.add(body)
		ended, events := false, 0
		for ev, err := range agent.ReadStream(context.Background(), srv.Client(), url, "token", 0) {
			if ended {
				t.Fatalf("yielded after the end")
			}
			switch {
			case err != nil:
				if !errors.Is(err, agent.ErrMalformedStream) && !errors.Is(err, agent.ErrStreamInterrupted) {
					t.Fatalf("untyped error: %v", err)
				}
				ended = true
			case ev.Terminal():
				ended = true
			}
			events++
		}
		if !ended {
			t.Fatalf("the stream stopped after %d events without a terminal event or an error", events)
		}
	})
}
