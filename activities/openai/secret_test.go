package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/openai"
)

const secretKey = "sk-proj-SECRET0123456789abcdefSECRET"

// echoServer answers with status and a body template whose %s is replaced by
// the Authorization header it received: the worst case of a proxy or a
// self-hosted server quoting the credential back.
func echoServer(t *testing.T, status int, template string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, template, req.Header.Get("Authorization"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestCompleteErrorsNeverContainAPIKey(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		template string
	}{
		{"openai error object", 401, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error","code":"invalid_api_key"}}`},
		{"ollama string error", 403, `{"error":"forbidden for %s"}`},
		{"legacy top-level message", 400, `{"object":"error","message":"bad header %s","code":400}`},
		{"fastapi detail", 422, `{"detail":"invalid token %s"}`},
		{"plain text", 500, `upstream rejected %s`},
		{"rate limit", 429, `{"error":{"message":"slow down %s"}}`},
		{"success body that does not decode", 200, `{"choices":[%s`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := echoServer(t, tt.status, tt.template)
			p := newProvider(t, openai.Config{BaseURL: base, APIKey: secretKey, DefaultModel: "m"})

			_, err := p.Complete(context.Background(), hello)

			requireNoSecret(t, err)
		})
	}
}

func TestCompleteNetworkErrorsNeverContainAPIKey(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL + "/v1"
	srv.Close()
	p := newProvider(t, openai.Config{BaseURL: base, APIKey: secretKey, DefaultModel: "m"})

	_, err := p.Complete(context.Background(), hello)

	requireNoSecret(t, err)
}

// requireNoSecret checks every way the error is likely to be printed.
func requireNoSecret(t *testing.T, err error) {
	t.Helper()
	f := requireFailure(t, err)
	for _, s := range []string{err.Error(), f.Message, fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		require.False(t, strings.Contains(s, secretKey), "secret leaked in %q", s)
		require.False(t, strings.Contains(s, "SECRET"), "part of the secret leaked in %q", s)
	}
}
