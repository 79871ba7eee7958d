package agent_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// lastOf reads a stream served as body and returns its events and the error
// it ended with.
func lastOf(t *testing.T, body string) ([]signals.StreamEvent, error) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	var evs []signals.StreamEvent
	for ev, err := range agent.ReadStream(context.Background(), srv.Client(), srv.URL, "token", 0) {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func TestReadStreamEndsMalformedStreamsWithATypedError(t *testing.T) {
	done := `data: {"seq":1,"kind":"done"}` + "\n\n"
	tests := []struct {
		name string
		body string
		want error
		n    int // events before the error
	}{
		{"a line over 4 MiB", "data: " + strings.Repeat("x", 4<<20) + "\n\n" + done, agent.ErrMalformedStream, 0},
		{"data that is not an event", "data: {\"seq\":0,\"kind\":\"chunk\"}\n\ndata: {oops\n\n" + done, agent.ErrMalformedStream, 1},
		{"empty", "", agent.ErrStreamInterrupted, 0},
		{"cut mid event", "data: {\"seq\":0,", agent.ErrStreamInterrupted, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := lastOf(t, tt.body)
			require.ErrorIs(t, err, tt.want)
			require.Len(t, evs, tt.n)
		})
	}
	evs, err := lastOf(t, "data: {\"seq\":0,\"kind\":\"chunk\",\"chunk\":{\"text\":\""+strings.Repeat("y", 3<<20)+"\"}}\n\n"+done)
	require.NoError(t, err)
	require.Len(t, evs, 2, "a large event within the bound is read whole")
}
