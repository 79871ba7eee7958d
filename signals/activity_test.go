package signals

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStreamLocatorPrintsWithoutItsToken(t *testing.T) {
	loc := StreamLocator{URL: "https://worker:7243/streams/a/r/m/1", Token: "tok-SECRET", Attempt: 2}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		out := fmt.Sprintf(verb, loc)
		require.NotContains(t, out, "SECRET", verb)
		require.Contains(t, out, loc.URL, verb)
	}
	var logs bytes.Buffer
	slog.New(slog.NewTextHandler(&logs, nil)).Info("Streaming", "locator", loc)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("Streaming", "locator", loc)
	require.NotContains(t, logs.String(), "SECRET")

	raw, err := json.Marshal(loc)
	require.NoError(t, err)
	require.JSONEq(t, `{"url":"https://worker:7243/streams/a/r/m/1","token":"tok-SECRET","attempt":2}`, string(raw),
		"the heartbeat detail carries it")
}
