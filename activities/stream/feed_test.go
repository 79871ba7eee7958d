package stream_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/stream"
)

// callKey is the stream key of model call turn.step of agent-1.
func callKey(turn, step int, attempt int32) stream.Key {
	return stream.Key{Agent: "agent-1", Run: "run-1", Activity: fmt.Sprintf("model-%d-%d", turn, step), Attempt: attempt}
}

// feedLine is an event of a feed as a test reads it: call/kind/text.
func feedLine(ev stream.Event) string {
	s := string(ev.Kind)
	if ev.Call != nil {
		s = fmt.Sprintf("%s@%d/%s", ev.Call.Activity, ev.Call.Attempt, ev.Kind)
	}
	if ev.Chunk != nil {
		s += ":" + ev.Chunk.Text
	}
	if ev.Error != "" {
		s += ":" + ev.Error
	}
	return s
}

// takeFeed reads n events of a feed, which follow on without a gap.
func takeFeed(t *testing.T, ch <-chan stream.Event, n int) []string {
	t.Helper()
	var got []string
	var last int64
	for i := range n {
		ev := recv(t, ch)
		if i > 0 {
			require.Equal(t, last+1, ev.Seq, "no gap")
		}
		last = ev.Seq
		got = append(got, feedLine(ev))
	}
	return got
}

// call streams one model call of n chunks and closes it with err.
func call(h *stream.Hub, turn, step int, n int, err error) {
	w := h.Open(callKey(turn, step, 1))
	emit(w, n)
	w.Close(err)
}

func TestAFeedSubscribedBeforeATurnSeesEveryCallInOrder(t *testing.T) {
	requireNoGoroutineLeak(t)
	h := newHub(t, stream.HubOptions{})
	_, token := h.Feed("agent-1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := h.SubscribeFeed(ctx, "agent-1", token, 0, 1)
	require.NoError(t, err)

	call(h, 1, 1, 2, nil) // each call over long before anyone could look it up
	call(h, 1, 2, 1, errors.New("overloaded"))
	call(h, 2, 1, 1, nil)

	require.Equal(t, []string{
		"model-1-1@1/call", "model-1-1@1/chunk:t0", "model-1-1@1/chunk:t1", "model-1-1@1/done",
		"model-1-2@1/call", "model-1-2@1/chunk:t0", "model-1-2@1/error:overloaded",
		"model-2-1@1/call", "model-2-1@1/chunk:t0", "model-2-1@1/done",
	}, takeFeed(t, ch, 10))
}

func TestAFeedNamingATurnReplaysItsCallsWhileTheHubHoldsThem(t *testing.T) {
	h := newHub(t, stream.HubOptions{})
	call(h, 1, 1, 1, nil)
	call(h, 2, 1, 1, nil)
	call(h, 2, 2, 1, nil)
	_, token := h.Feed("agent-1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	ch, err := h.SubscribeFeed(ctx, "agent-1", token, 0, 2)
	require.NoError(t, err)
	require.Equal(t, []string{
		"model-2-1@1/call", "model-2-1@1/chunk:t0", "model-2-1@1/done",
		"model-2-2@1/call", "model-2-2@1/chunk:t0", "model-2-2@1/done",
	}, takeFeed(t, ch, 6), "turn 2 only, from its first call")

	later, err := h.SubscribeFeed(ctx, "agent-1", token, 0, 3)
	require.NoError(t, err)
	call(h, 3, 1, 1, nil)
	require.Equal(t, "model-3-1@1/call", feedLine(recv(t, later)), "a turn not yet begun: from the feed's end")
}

func TestAFeedIsReadOnlyWithItsToken(t *testing.T) {
	h := newHub(t, stream.HubOptions{})
	_, token := h.Feed("agent-1")
	ctx := context.Background()
	for name, tc := range map[string]struct{ agent, token string }{
		"wrong token":   {"agent-1", strings.Repeat("A", len(token))},
		"no token":      {"agent-1", ""},
		"unknown agent": {"agent-2", token},
	} {
		_, err := h.SubscribeFeed(ctx, tc.agent, tc.token, 0, 0)
		require.ErrorIs(t, err, stream.ErrNoStream, name)
	}
	w := h.Open(callKey(1, 1, 1))
	defer w.Close(nil)
	require.NotEqual(t, token, w.Token(), "the feed and each call have their own tokens")
}

func TestAnUnusedFeedGoesAfterLingerAndComesBackWithANewToken(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	h := newHub(t, stream.HubOptions{Linger: time.Minute, Now: clock.Now})
	ctx, cancel := context.WithCancel(context.Background())
	_, token := h.Feed("agent-1")
	ch, err := h.SubscribeFeed(ctx, "agent-1", token, 0, 0)
	require.NoError(t, err)
	call(h, 1, 1, 1, nil)
	clock.Advance(2 * time.Minute)
	_, again := h.Feed("agent-1")
	require.Equal(t, token, again, "a feed with a subscriber stays")

	cancel()
	_, err = drain(ch)
	require.NoError(t, err)
	clock.Advance(30 * time.Second)
	_, again = h.Feed("agent-1")
	require.Equal(t, token, again, "within Linger of its last use")
	clock.Advance(31 * time.Second)
	_, again = h.Feed("agent-1")
	require.NotEqual(t, token, again, "gone after Linger: a new feed, a new token")
}

func TestAReplacedCallEndsInTheFeedAndFreesIt(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	h := newHub(t, stream.HubOptions{Linger: time.Minute, Now: clock.Now})
	_, token := h.Feed("agent-1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := h.SubscribeFeed(ctx, "agent-1", token, 0, 0)
	require.NoError(t, err)
	old := h.Open(callKey(1, 1, 1))
	old.Emit(text(0))
	h.Open(callKey(1, 1, 1)).Close(nil)
	old.Close(nil) // quiet: replaced
	require.Equal(t, []string{
		"model-1-1@1/call", "model-1-1@1/chunk:t0", "model-1-1@1/error:replaced",
		"model-1-1@1/call", "model-1-1@1/done",
	}, takeFeed(t, ch, 5))
}

func TestFeedsAreServedAsServerSentEvents(t *testing.T) {
	requireNoGoroutineLeak(t)
	h := stream.NewHub(stream.HubOptions{})
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() { h.Close(); srv.Close() })
	path, token := h.Feed("agent-1")
	call(h, 1, 1, 1, nil)

	req, err := http.NewRequest(http.MethodGet, srv.URL+path+"?turn=1", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	sc := bufio.NewScanner(resp.Body)
	var got []string
	for len(got) < 3 && sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev stream.Event
		require.NoError(t, json.Unmarshal([]byte(data), &ev))
		got = append(got, feedLine(ev))
	}
	require.Equal(t, []string{"model-1-1@1/call", "model-1-1@1/chunk:t0", "model-1-1@1/done"}, got)

	bad, err := http.NewRequest(http.MethodGet, srv.URL+path+"?turn=1", nil)
	require.NoError(t, err)
	bad.Header.Set("Authorization", "Bearer nope")
	resp2, err := http.DefaultClient.Do(bad)
	require.NoError(t, err)
	resp2.Body.Close()
	require.Equal(t, http.StatusNotFound, resp2.StatusCode)
}
