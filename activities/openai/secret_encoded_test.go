package openai_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/openai"
)

// Issue 10: a proxy that echoes the credential back encoded must not get
// it into a failure message either.
func TestCompleteErrorsNeverContainAnEncodedAPIKey(t *testing.T) {
	basic := func(auth string) string {
		return base64.StdEncoding.EncodeToString([]byte("user:" + auth[len("Bearer "):]))
	}
	tests := map[string]func(auth string) string{
		"base64 Authorization header": func(auth string) string { return base64.StdEncoding.EncodeToString([]byte(auth)) },
		"base64 Basic credentials":    basic,
		"URL-encoded key":             func(auth string) string { return url.QueryEscape(auth[len("Bearer "):]) },
		"JSON-escaped header":         func(auth string) string { b, _ := json.Marshal(auth); return string(b[1 : len(b)-1]) },
	}
	for name, encode := range tests {
		t.Run(name, func(t *testing.T) {
			echoes := make(chan string, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				_, _ = io.Copy(io.Discard, req.Body)
				echoed := encode(req.Header.Get("Authorization"))
				echoes <- echoed
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = fmt.Fprintf(w, `{"error":{"message":"credential %s rejected","code":"invalid_api_key"}}`, echoed)
			}))
			t.Cleanup(srv.Close)
			p := newProvider(t, openai.Config{BaseURL: srv.URL + "/v1", APIKey: secretKey, DefaultModel: "m"})

			_, err := p.Complete(context.Background(), hello)

			echoed := <-echoes
			requireNoSecret(t, err)
			f := requireFailure(t, err)
			require.Contains(t, f.Message, "[redacted]")
			require.NotContains(t, f.Message, echoed[4:len(echoed)-4])
		})
	}
}
