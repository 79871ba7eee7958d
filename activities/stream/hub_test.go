package stream_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/stream"
)

func TestSubscribeReplaysBufferedEventsFromOffset(t *testing.T) {
	requireNoGoroutineLeak(t)
	h := newHub(t, stream.HubOptions{})
	w := h.Open(testKey)
	emit(w, 5)
	w.Close(nil)

	tests := []struct {
		name string
		from int64
		want []stream.Event
	}{
		{"from start", 0, events(0, 5, done)},
		{"negative from reads from start", -3, events(0, 5, done)},
		{"from the middle", 3, events(3, 5, done)},
		{"from the terminal event", 5, events(5, 5, done)},
		{"past the end still gets the terminal event", 99, events(5, 5, done)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, collect(t, subscribe(t, h, testKey, w.Token(), tt.from)))
		})
	}
}

func TestSubscribeDeliversLiveEventsInOrder(t *testing.T) {
	requireNoGoroutineLeak(t)
	h := newHub(t, stream.HubOptions{})
	w := h.Open(testKey)
	ch := subscribe(t, h, testKey, w.Token(), 0)

	w.Emit(text(0))
	require.Equal(t, chunkEvent(0), recv(t, ch), "a live event arrives before the next is emitted")
	for i := 1; i < 300; i++ { // more than a subscription's channel holds
		w.Emit(text(i))
	}
	w.Close(nil)
	require.Equal(t, events(1, 300, done), collect(t, ch))
}

func TestTerminalEventEndsSubscription(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want stream.Event
	}{
		{"success ends with done", nil, done},
		{"failure ends with error", errors.New("rate limited"), stream.Event{Kind: stream.KindError, Error: "rate limited"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireNoGoroutineLeak(t)
			h := newHub(t, stream.HubOptions{})
			w := h.Open(testKey)
			ch := subscribe(t, h, testKey, w.Token(), 0)
			emit(w, 2)
			w.Close(tt.err)
			w.Close(errors.New("second close is ignored"))
			w.Emit(text(9)) // so is an emit after close

			require.Equal(t, events(0, 2, tt.want), collect(t, ch))
			require.Equal(t, events(0, 2, tt.want), collect(t, subscribe(t, h, testKey, w.Token(), 0)))
		})
	}
}

// The hub decides at once, whatever the context: a stream nobody holds the
// token of yet can only be a guess, so it is never waited for.
func TestSubscribeWithoutTheRightTokenFailsAtOnce(t *testing.T) {
	requireNoGoroutineLeak(t)
	h := newHub(t, stream.HubOptions{})
	w := h.Open(testKey)
	emit(w, 3)
	other := h.Open(stream.Key{Agent: "other", Run: "r", Activity: "a", Attempt: 1})
	replaced := h.Open(stream.Key{Agent: "again", Run: "r", Activity: "a", Attempt: 1})
	h.Open(stream.Key{Agent: "again", Run: "r", Activity: "a", Attempt: 1})

	tests := []struct {
		name  string
		key   stream.Key
		token string
	}{
		{"unknown key", stream.Key{Agent: "nobody", Run: "r", Activity: "a", Attempt: 1}, w.Token()},
		{"no token", testKey, ""},
		{"wrong token", testKey, "not-the-token"},
		{"token one character short", testKey, w.Token()[1:]},
		{"token of another stream", testKey, other.Token()},
		{"token of a replaced stream", stream.Key{Agent: "again", Run: "r", Activity: "a", Attempt: 1}, replaced.Token()},
	}
	done, cancel := context.WithCancel(t.Context())
	cancel() // a hub that waited would answer with the context's error
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := h.Subscribe(done, tt.key, tt.token, 0)
			require.ErrorIs(t, err, stream.ErrNoStream)
			require.Nil(t, ch)
		})
	}
	require.Zero(t, stream.Subscribers(h), "no refused subscription is counted")

	h.Close()
	_, err := h.Subscribe(t.Context(), testKey, w.Token(), 0)
	require.ErrorIs(t, err, stream.ErrHubClosed)
}

func TestTokensAreFreshAndUnguessable(t *testing.T) {
	h := newHub(t, stream.HubOptions{})
	seen := map[string]bool{}
	for i := range 1000 {
		tok := h.Open(stream.Key{Agent: "a", Run: "r", Activity: fmt.Sprint(i), Attempt: 1}).Token()
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(raw)*8, 128, "at least 128 bits")
		require.False(t, seen[tok], "token %d repeats", i)
		seen[tok] = true
	}
	first := h.Open(testKey).Token()
	require.NotEqual(t, first, h.Open(testKey).Token(), "reopening a key mints a new token")
}

func TestOpenAgainReplacesStream(t *testing.T) {
	requireNoGoroutineLeak(t)
	h := newHub(t, stream.HubOptions{})
	old := h.Open(testKey)
	emit(old, 3)
	oldSub := subscribe(t, h, testKey, old.Token(), 0)

	w := h.Open(testKey)
	old.Emit(text(7)) // the replaced writer goes quiet
	old.Close(nil)
	emit(w, 1)
	w.Close(nil)

	got := collect(t, oldSub)
	require.NotEmpty(t, got)
	require.Equal(t, stream.Event{Seq: 0, Kind: stream.KindError, Error: stream.ErrorReplaced}, got[len(got)-1])
	require.Equal(t, events(0, 1, done), collect(t, subscribe(t, h, testKey, w.Token(), 0)), "the key now reads the new stream")
}

func TestSlowSubscriberIsCutOffWithoutBlockingEmit(t *testing.T) {
	requireNoGoroutineLeak(t)
	h := newHub(t, stream.HubOptions{MaxEventsPerStream: 8})
	w := h.Open(testKey)
	stuck := subscribe(t, h, testKey, w.Token(), 0) // never read until the end

	within(t, "Emit to a subscriber that does not read", func() {
		emit(w, 1000)
		w.Close(nil)
	})

	got := collect(t, stuck)
	last := got[len(got)-1]
	require.Equal(t, stream.KindError, last.Kind)
	require.Equal(t, stream.ErrorLagged, last.Error)
	received := int64(len(got) - 1)
	require.LessOrEqual(t, received, int64(stream.SubscriberBuffer+1), "cut off once its channel was full")
	require.Equal(t, events(0, 1000, done)[:received], got[:received], "what it got before is intact")
	require.Greater(t, last.Seq, received, "Seq points past the gap, at the oldest event held then")
	require.LessOrEqual(t, last.Seq, int64(1001-8))
	require.Equal(t, events(993, 1000, done), collect(t, subscribe(t, h, testKey, w.Token(), 993)),
		"reconnecting inside the window resumes")
}

func TestSubscribeFromBeforeWindowIsLagged(t *testing.T) {
	requireNoGoroutineLeak(t)
	h := newHub(t, stream.HubOptions{MaxEventsPerStream: 4})
	w := h.Open(testKey)
	emit(w, 10)
	w.Close(nil) // the window holds 7..10

	lagged := stream.Event{Seq: 7, Kind: stream.KindError, Error: stream.ErrorLagged}
	tests := []struct {
		from int64
		want []stream.Event
	}{
		{0, []stream.Event{lagged}},
		{6, []stream.Event{lagged}},
		{7, events(7, 10, done)},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, collect(t, subscribe(t, h, testKey, w.Token(), tt.from)), "from %d", tt.from)
	}
}

func TestFinishedStreamLingersThenExpires(t *testing.T) {
	tests := []struct {
		name     string
		after    time.Duration
		finished bool
		readable bool
	}{
		{"finished, within linger", time.Minute - time.Nanosecond, true, true},
		{"finished, linger passed", time.Minute, true, false},
		{"still open, long after", time.Hour, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireNoGoroutineLeak(t)
			clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
			h := newHub(t, stream.HubOptions{Linger: time.Minute, Now: clock.Now})
			w := h.Open(testKey)
			emit(w, 2)
			if tt.finished {
				w.Close(nil)
			}
			clock.Advance(tt.after)

			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			ch, err := h.Subscribe(ctx, testKey, w.Token(), 0)
			if !tt.readable {
				require.ErrorIs(t, err, stream.ErrNoStream)
				require.Zero(t, stream.Streams(h))
				return
			}
			require.NoError(t, err)
			require.Equal(t, chunkEvent(0), recv(t, ch))
		})
	}
}

func TestIdleHubLetsGoOfFinishedStreams(t *testing.T) {
	requireNoGoroutineLeak(t)
	h := newHub(t, stream.HubOptions{Linger: 10 * time.Millisecond})
	for i := range 3 {
		w := h.Open(stream.Key{Agent: "a", Run: "r", Activity: "x", Attempt: int32(i)})
		emit(w, 1)
		w.Close(nil)
	}
	open := h.Open(testKey)
	defer open.Close(nil)

	require.Eventually(t, func() bool { return stream.Streams(h) == 1 }, patience, time.Millisecond,
		"finished streams are dropped with no further Open or Subscribe")
}

func TestContextEndClosesSubscription(t *testing.T) {
	requireNoGoroutineLeak(t)
	h := newHub(t, stream.HubOptions{})
	w := h.Open(testKey)
	defer w.Close(nil)

	ctx, cancel := context.WithCancel(t.Context())
	waiting, err := h.Subscribe(ctx, testKey, w.Token(), 0) // waits for events
	require.NoError(t, err)
	emit(w, 2*stream.SubscriberBuffer)
	full, err := h.Subscribe(ctx, testKey, w.Token(), 0) // blocked on a full channel
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(full) == cap(full) }, patience, time.Millisecond)

	cancel()
	collect(t, waiting)
	collect(t, full)
}

func TestHubCloseEndsEverything(t *testing.T) {
	requireNoGoroutineLeak(t)
	h := stream.NewHub(stream.HubOptions{})
	w := h.Open(testKey)
	emit(w, 2)
	sub := subscribe(t, h, testKey, w.Token(), 0)
	require.Equal(t, chunkEvent(0), recv(t, sub))
	require.Equal(t, chunkEvent(1), recv(t, sub))

	within(t, "Close", h.Close)
	require.Equal(t, []stream.Event{{Seq: 2, Kind: stream.KindError, Error: stream.ErrorHubClosed}}, collect(t, sub))

	w.Emit(text(3)) // writers outliving the hub are harmless
	w.Close(nil)
	late := h.Open(testKey)
	late.Emit(text(0))
	late.Close(nil)
	_, err := h.Subscribe(t.Context(), testKey, w.Token(), 0)
	require.ErrorIs(t, err, stream.ErrHubClosed)
	within(t, "a second Close", h.Close)
}
