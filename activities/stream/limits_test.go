package stream_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/stream"
)

// hold opens an event stream over HTTP and keeps it open until the test
// ends or release is called.
func hold(t *testing.T, srv interface{ Client() *http.Client }, url, token string) (release func()) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	t.Cleanup(func() { resp.Body.Close() })
	return func() { resp.Body.Close() }
}

func TestSubscriberLimitsAnswer429PerStreamAnd503ForTheHub(t *testing.T) {
	requireNoGoroutineLeak(t)
	h, srv := serve(t, stream.HubOptions{MaxSubscribers: 2, MaxSubscribersPerStream: 1})
	keyB := stream.Key{Agent: "b", Run: "r", Activity: "a", Attempt: 1}
	keyC := stream.Key{Agent: "c", Run: "r", Activity: "a", Attempt: 1}
	a, b, c := h.Open(testKey), h.Open(keyB), h.Open(keyC)
	defer a.Close(nil)
	defer b.Close(nil)
	defer c.Close(nil)

	releaseA := hold(t, srv, srv.URL+testKey.Path(), a.Token())
	status, _, _ := get(t, srv, http.MethodGet, srv.URL+testKey.Path(), "Bearer "+a.Token())
	require.Equal(t, http.StatusTooManyRequests, status, "a second subscriber to a stream limited to one")
	_, err := readAll(t.Context(), srv, srv.URL+testKey.Path(), a.Token(), 0)
	require.ErrorIs(t, err, stream.ErrStreamBusy)
	_, err = h.Subscribe(t.Context(), testKey, a.Token(), 0)
	require.ErrorIs(t, err, stream.ErrStreamBusy)

	hold(t, srv, srv.URL+keyB.Path(), b.Token())
	status, _, _ = get(t, srv, http.MethodGet, srv.URL+keyC.Path(), "Bearer "+c.Token())
	require.Equal(t, http.StatusServiceUnavailable, status, "a third subscriber to a hub limited to two")
	_, err = readAll(t.Context(), srv, srv.URL+keyC.Path(), c.Token(), 0)
	require.ErrorIs(t, err, stream.ErrHubBusy)
	status, _, _ = get(t, srv, http.MethodGet, srv.URL+keyC.Path(), "")
	require.Equal(t, http.StatusNotFound, status, "without the token, a busy hub still says only 404")

	releaseA()
	require.Eventually(t, func() bool { return stream.Subscribers(h) == 1 }, patience, time.Millisecond,
		"a client that goes away frees its place")
	hold(t, srv, srv.URL+testKey.Path(), a.Token())
}
