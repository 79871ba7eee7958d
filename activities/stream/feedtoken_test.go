package stream_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/stream"
)

func TestAFeedTokenExpiresAndIsRotatedAtHalfItsLife(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	h := newHub(t, stream.HubOptions{Now: clock.Now, FeedTokenTTL: 10 * time.Minute, Linger: time.Hour})
	call(h, 1, 1, 1, nil)
	_, first := h.Feed("agent-1")

	clock.Advance(4 * time.Minute)
	_, again := h.Feed("agent-1")
	require.Equal(t, first, again, "a token with more than half its life left is handed out again")

	clock.Advance(2 * time.Minute)
	_, second := h.Feed("agent-1")
	require.NotEqual(t, first, second, "past half its life, the feed query hands out a new token")
	ch, err := h.SubscribeFeed(context.Background(), "agent-1", first, 0, 0)
	require.NoError(t, err, "the old token still works until it expires")
	drainLater(ch)

	clock.Advance(4 * time.Minute)
	_, err = h.SubscribeFeed(context.Background(), "agent-1", first, 0, 0)
	require.ErrorIs(t, err, stream.ErrNoStream, "ten minutes on, the first token opens nothing")
	ch, err = h.SubscribeFeed(context.Background(), "agent-1", second, 0, 0)
	require.NoError(t, err)
	drainLater(ch)
}

func TestASubscriptionEndsWhenItsTokenExpiresSoLaterTurnsAreNotSeen(t *testing.T) {
	h := newHub(t, stream.HubOptions{FeedTokenTTL: 300 * time.Millisecond})
	_, token := h.Feed("agent-1")
	ch, err := h.SubscribeFeed(context.Background(), "agent-1", token, 0, 0)
	require.NoError(t, err)
	call(h, 1, 1, 1, nil)
	require.Equal(t, []string{"model-1-1@1/call", "model-1-1@1/chunk:t0", "model-1-1@1/done"}, takeFeed(t, ch, 3))

	rest, err := drain(ch)
	require.NoError(t, err, "the subscription closes at the token's expiry")
	require.Empty(t, rest)
	call(h, 2, 1, 1, nil)
	_, err = h.SubscribeFeed(context.Background(), "agent-1", token, 0, 2)
	require.ErrorIs(t, err, stream.ErrNoStream, "turn 2 is not for the old token")
}

// drainLater reads ch to its end off the test goroutine.
func drainLater(ch <-chan stream.Event) { go func() { _, _ = drain(ch) }() }
