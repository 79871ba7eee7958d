package anthropic_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/anthropic"
)

const secretKey = "sk-ant-api03-SECRET0123456789abcdefSECRET"

// echoServer answers with status and a body template whose %s is replaced by
// the x-api-key header it received: the worst case of a gateway quoting the
// credential back.
func echoServer(t *testing.T, status int, template string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(template, "event:") {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, template, req.Header.Get("X-Api-Key"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestCallErrorsNeverContainAPIKey(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		template string
	}{
		{"anthropic error object", 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key %s"}}`},
		{"gateway string error", 403, `{"error":"forbidden for %s"}`},
		{"top-level message", 400, `{"message":"bad header %s"}`},
		{"plain text", 500, `upstream rejected %s`},
		{"rate limit", 429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down %s"}}`},
		{"success body that does not decode", 200, `{"content":[%s`},
		{"error event mid-stream", 200, midStream + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"%[1]s\",\"message\":\"overloaded %[1]s\"}}\n\n"},
		{"malformed event mid-stream", 200, midStream + "event: content_block_delta\ndata: {%s\n\n"},
	}
	for _, tt := range tests {
		for _, c := range bothCalls {
			t.Run(tt.name+"/"+c.name, func(t *testing.T) {
				base := echoServer(t, tt.status, tt.template)
				p := newProvider(t, anthropic.Config{BaseURL: base, APIKey: secretKey, DefaultModel: "m"})

				_, err := c.do(p, context.Background(), hello)

				requireNoSecret(t, err)
			})
		}
	}
}

func TestCallNetworkErrorsNeverContainAPIKey(t *testing.T) {
	for _, c := range bothCalls {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.NotFoundHandler())
			base := srv.URL
			srv.Close()
			p := newProvider(t, anthropic.Config{BaseURL: base, APIKey: secretKey, DefaultModel: "m"})

			_, err := c.do(p, context.Background(), hello)

			requireNoSecret(t, err)
		})
	}
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
