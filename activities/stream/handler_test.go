package stream_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/agent"
)

// serve runs h's handler on a test server. Cleanups close the hub first,
// which ends open responses, then the server, which waits for them.
func serve(t *testing.T, opts stream.HubOptions) (*stream.Hub, *httptest.Server) {
	t.Helper()
	h := stream.NewHub(opts)
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	t.Cleanup(h.Close)
	return h, srv
}

// readAll ranges over Read and returns what it yielded.
func readAll(ctx context.Context, srv *httptest.Server, url, token string, from int64) ([]stream.Event, error) {
	var got []stream.Event
	for ev, err := range agent.ReadStream(ctx, srv.Client(), url, token, from) {
		if err != nil {
			return got, err
		}
		got = append(got, ev)
	}
	return got, nil
}

func TestReadReceivesEveryEventInOrder(t *testing.T) {
	tests := []struct {
		name string
		key  stream.Key
		err  error
		want stream.Event
	}{
		{"done", testKey, nil, done},
		{"error", testKey, errors.New("overloaded"), stream.Event{Kind: stream.KindError, Error: "overloaded"}},
		{"ids that need escaping", stream.Key{Agent: "team/agent 1", Run: "r%2F", Activity: "ä?x", Attempt: 3}, nil, done},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireNoGoroutineLeak(t)
			h, srv := serve(t, stream.HubOptions{})
			w := h.Open(tt.key)
			go func() {
				emit(w, 200)
				w.Close(tt.err)
			}()

			got, err := readAll(t.Context(), srv, srv.URL+tt.key.Path(), w.Token(), 0)
			require.NoError(t, err)
			require.Equal(t, events(0, 200, tt.want), got)
		})
	}
}

func TestReadReconnectsWithFrom(t *testing.T) {
	requireNoGoroutineLeak(t)
	h, srv := serve(t, stream.HubOptions{})
	w := h.Open(testKey)
	url := srv.URL + testKey.Path()
	emit(w, 5)

	var first []stream.Event
	for ev, err := range agent.ReadStream(t.Context(), srv.Client(), url, w.Token(), 0) {
		require.NoError(t, err)
		first = append(first, ev)
		if len(first) == 3 {
			break // drops the connection mid-stream
		}
	}
	for i := 5; i < 8; i++ {
		w.Emit(text(i))
	}
	w.Close(nil)
	rest, err := readAll(t.Context(), srv, url, w.Token(), first[len(first)-1].Seq+1)
	require.NoError(t, err)
	require.Equal(t, events(0, 8, done), append(first, rest...))
}

func TestHandlerRejectsBadRequests(t *testing.T) {
	requireNoGoroutineLeak(t)
	h, srv := serve(t, stream.HubOptions{})
	w := h.Open(testKey)
	defer w.Close(nil)

	tests := []struct {
		name   string
		method string
		path   string
		want   int
	}{
		{"unknown key", http.MethodGet, "/streams/a/b/c/1", http.StatusNotFound},
		{"not a stream path", http.MethodGet, "/streams/a/b", http.StatusNotFound},
		{"attempt is not a number", http.MethodGet, "/streams/a/b/c/x", http.StatusBadRequest},
		{"attempt overflows int32", http.MethodGet, "/streams/a/b/c/4294967296", http.StatusBadRequest},
		{"negative from", http.MethodGet, testKey.Path() + "?from=-1", http.StatusBadRequest},
		{"from is not a number", http.MethodGet, testKey.Path() + "?from=x", http.StatusBadRequest},
		{"not a GET", http.MethodPost, testKey.Path(), http.StatusMethodNotAllowed},
		{"HEAD finds an open stream", http.MethodHead, testKey.Path(), http.StatusOK},
		{"HEAD of an unknown key", http.MethodHead, "/streams/a/b/c/1", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tt.method, srv.URL+tt.path, nil)
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+w.Token())
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, tt.want, resp.StatusCode)
		})
	}
}

func TestReadFailsOnBadResponses(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		events  int
		wantErr error
		wantMsg string
	}{
		{"server ends mid-stream", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"seq\":0,\"kind\":\"chunk\",\"chunk\":{\"text\":\"t0\"}}\n\n: ping\n\n")
			io.WriteString(w, "data: {\"seq\":1,\"kind\":\"chunk\",\"chunk\":{\"text\":\"t1\"}}\r\n\r\n")
		}, 2, agent.ErrStreamInterrupted, ""},
		{"server ends mid-event", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"seq\":0,")
		}, 0, agent.ErrStreamInterrupted, ""},
		{"garbled event", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: nonsense\n\n")
		}, 0, nil, "decode event"},
		{"server error", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}, 0, nil, "500"},
		{"not an event stream", func(w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, "<html>")
		}, 0, nil, "not text/event-stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireNoGoroutineLeak(t)
			srv := httptest.NewServer(tt.handler)
			t.Cleanup(srv.Close)
			got, err := readAll(t.Context(), srv, srv.URL+testKey.Path(), "any-token", 0)
			require.Error(t, err)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			}
			require.ErrorContains(t, err, tt.wantMsg)
			require.Len(t, got, tt.events)
			for i, ev := range got {
				require.Equal(t, chunkEvent(int64(i)), ev)
			}
		})
	}
}

func TestHandlerPingsIdleResponses(t *testing.T) {
	requireNoGoroutineLeak(t)
	h, srv := serve(t, stream.HubOptions{PingEvery: 5 * time.Millisecond})
	w := h.Open(testKey)
	defer w.Close(nil)

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+testKey.Path(), nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+w.Token())
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))

	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, ": ping\n", line)
}

func TestReadContextCancelClosesEverything(t *testing.T) {
	requireNoGoroutineLeak(t)
	h, srv := serve(t, stream.HubOptions{})
	w := h.Open(testKey)
	defer w.Close(nil)
	w.Emit(text(0))

	ctx, cancel := context.WithCancel(t.Context())
	var got []stream.Event
	var err error
	within(t, "Read after cancel", func() {
		for ev, e := range agent.ReadStream(ctx, srv.Client(), srv.URL+testKey.Path(), w.Token(), 0) {
			if e != nil {
				err = e
				break
			}
			got = append(got, ev)
			cancel() // while the stream is live and idle
		}
	})
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, []stream.Event{chunkEvent(0)}, got)

	_, err = readAll(ctx, srv, srv.URL+testKey.Path(), w.Token(), 0)
	require.ErrorIs(t, err, context.Canceled, "a cancelled context does not connect")
}

func TestHubCloseEndsResponses(t *testing.T) {
	requireNoGoroutineLeak(t)
	h, srv := serve(t, stream.HubOptions{})
	w := h.Open(testKey)
	w.Emit(text(0))

	var got []stream.Event
	var err error
	within(t, "Read across Hub.Close", func() {
		for ev, e := range agent.ReadStream(t.Context(), srv.Client(), srv.URL+testKey.Path(), w.Token(), 0) {
			if e != nil {
				err = e
				break
			}
			got = append(got, ev)
			if ev.Seq == 0 {
				h.Close()
			}
		}
	})
	require.NoError(t, err)
	require.Equal(t, []stream.Event{chunkEvent(0), {Seq: 1, Kind: stream.KindError, Error: stream.ErrorHubClosed}}, got)
}
