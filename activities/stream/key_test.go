package stream_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/stream"
)

func TestKeyPathEscapesEachSegment(t *testing.T) {
	tests := []struct {
		key  stream.Key
		want string
	}{
		{testKey, "/streams/agent-1/run-1/5/1"},
		{stream.Key{Agent: "team/a b", Run: "r%1", Activity: "x?y#z", Attempt: 12}, "/streams/team%2Fa%20b/r%251/x%3Fy%23z/12"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			require.Equal(t, tt.want, tt.key.Path())

			// The handler routes the path back to the same key.
			h := newHub(t, stream.HubOptions{})
			w := h.Open(tt.key)
			defer w.Close(nil)
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodHead, tt.key.Path(), nil)
			req.Header.Set("Authorization", "Bearer "+w.Token())
			h.Handler().ServeHTTP(rec, req)
			require.Equal(t, http.StatusOK, rec.Code)
		})
	}
}
