package stream_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/stream"
)

// patience bounds every wait in these tests; nothing waits for it to pass.
const patience = 10 * time.Second

var testKey = stream.Key{Agent: "agent-1", Run: "run-1", Activity: "5", Attempt: 1}

// requireNoGoroutineLeak fails the test if, once its other cleanups ran, the
// goroutine count does not come back to where it was. Tests using it must not
// run in parallel.
func requireNoGoroutineLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(patience)
		now := runtime.NumGoroutine()
		for now > before && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond) // bounded poll
			now = runtime.NumGoroutine()
		}
		if now > before {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			require.LessOrEqualf(t, now, before, "goroutines leaked:\n%s", buf)
		}
	})
}

// newHub returns a hub closed when the test ends.
func newHub(t *testing.T, opts stream.HubOptions) *stream.Hub {
	t.Helper()
	h := stream.NewHub(opts)
	t.Cleanup(h.Close)
	return h
}

// subscribe subscribes for as long as the hub lives, so that the leak check
// also proves Hub.Close ends subscriptions.
func subscribe(t *testing.T, h *stream.Hub, k stream.Key, token string, from int64) <-chan stream.Event {
	t.Helper()
	ch, err := h.Subscribe(context.Background(), k, token, from)
	require.NoError(t, err)
	return ch
}

// collect reads ch until it closes.
func collect(t *testing.T, ch <-chan stream.Event) []stream.Event {
	t.Helper()
	got, err := drain(ch)
	require.NoError(t, err)
	return got
}

// drain reads ch until it closes; it is safe off the test goroutine.
func drain(ch <-chan stream.Event) ([]stream.Event, error) {
	timeout := time.After(patience)
	var got []stream.Event
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return got, nil
			}
			got = append(got, ev)
		case <-timeout:
			return got, fmt.Errorf("subscription still open after %d events", len(got))
		}
	}
}

func recv(t *testing.T, ch <-chan stream.Event) stream.Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		require.True(t, ok, "subscription closed")
		return ev
	case <-time.After(patience):
		t.Fatal("no event")
		return stream.Event{}
	}
}

func text(i int) llm.Chunk { return llm.Chunk{Text: fmt.Sprintf("t%d", i)} }

func chunkEvent(seq int64) stream.Event {
	c := text(int(seq))
	return stream.Event{Seq: seq, Kind: stream.KindChunk, Chunk: &c}
}

// events is what a subscriber from `from` sees of a stream of n chunks
// followed by terminal.
func events(from, n int64, terminal stream.Event) []stream.Event {
	var want []stream.Event
	for seq := from; seq < n; seq++ {
		want = append(want, chunkEvent(seq))
	}
	terminal.Seq = n
	return append(want, terminal)
}

var done = stream.Event{Kind: stream.KindDone}

// emit writes n chunks text(0) ... text(n-1).
func emit(w *stream.Writer, n int) {
	for i := range n {
		w.Emit(text(i))
	}
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func within(t *testing.T, what string, f func()) {
	t.Helper()
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		f()
	}()
	select {
	case <-finished:
	case <-time.After(patience):
		t.Fatalf("%s did not return", what)
	}
}
