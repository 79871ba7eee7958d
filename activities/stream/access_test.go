package stream_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/stream"
)

// get sends a request for path with the given Authorization header (none
// when empty) and returns the status, content type and whole body.
func get(t *testing.T, srv interface{ Client() *http.Client }, method, url, authorization string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, nil)
	require.NoError(t, err)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}

// A request that lacks the stream's token gets exactly what a request for
// a stream that does not exist gets: a 404 with no byte of the stream.
func TestRequestWithoutTheRightTokenGetsNoChunk(t *testing.T) {
	requireNoGoroutineLeak(t)
	h, srv := serve(t, stream.HubOptions{})
	w := h.Open(testKey)
	w.Emit(llm.Chunk{Text: "SECRET-CHUNK"})
	other := h.Open(stream.Key{Agent: "other", Run: "r", Activity: "a", Attempt: 1})
	defer other.Close(nil)
	url := srv.URL + testKey.Path()

	unknownStatus, unknownType, unknownBody := get(t, srv, http.MethodGet, srv.URL+"/streams/nobody/r/a/1", "")
	require.Equal(t, http.StatusNotFound, unknownStatus)

	tests := []struct {
		name          string
		url           string
		authorization string
	}{
		{"no token", url, ""},
		{"wrong token", url, "Bearer not-the-token"},
		{"token of another stream", url, "Bearer " + other.Token()},
		{"right token, other scheme", url, "Basic " + w.Token()},
		{"right token in the URL instead of the header", url + "?token=" + w.Token(), ""},
		{"unknown key with the right token", srv.URL + "/streams/nobody/r/a/1", "Bearer " + w.Token()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				status, contentType, body := get(t, srv, method, tt.url, tt.authorization)
				require.Equal(t, unknownStatus, status, method)
				require.Equal(t, unknownType, contentType, method)
				if method == http.MethodGet {
					require.Equal(t, unknownBody, body, "nothing tells the stream exists")
				}
				require.NotContains(t, body, "SECRET-CHUNK")
			}
		})
	}
	require.Zero(t, stream.Subscribers(h))

	w.Close(nil)
	got, err := readAll(t.Context(), srv, url, w.Token(), 0)
	require.NoError(t, err)
	require.Equal(t, []stream.Event{{Seq: 0, Kind: stream.KindChunk, Chunk: &llm.Chunk{Text: "SECRET-CHUNK"}}, {Seq: 1, Kind: stream.KindDone}}, got,
		"the right token streams")
	status, _, _ := get(t, srv, http.MethodHead, url, "bearer "+w.Token())
	require.Equal(t, http.StatusOK, status, "the scheme's name is case-insensitive")
}

func TestReadWithAWrongTokenIsErrNoStream(t *testing.T) {
	requireNoGoroutineLeak(t)
	h, srv := serve(t, stream.HubOptions{})
	w := h.Open(testKey)
	emit(w, 3)
	w.Close(nil)

	got, err := readAll(t.Context(), srv, srv.URL+testKey.Path(), "guess", 0)
	require.ErrorIs(t, err, stream.ErrNoStream)
	require.Empty(t, got)
	require.NotContains(t, err.Error(), w.Token())
}
