package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/eventlog"
)

var hello = llm.Request{Messages: []eventlog.Message{{Role: eventlog.RoleUser, Content: "hi"}}}

// requireFailure asserts err is an *llm.Error (not merely wrapping one) and
// returns its failure.
func requireFailure(t *testing.T, err error) eventlog.Failure {
	t.Helper()
	require.IsType(t, &llm.Error{}, err)
	lerr, _ := llm.AsError(err)
	return lerr.Failure
}

func TestCompleteMapsErrorResponses(t *testing.T) {
	html := map[string]string{"Content-Type": "text/html"}
	tests := []struct {
		name    string
		status  int
		body    string // fixture name, or a literal body starting with '{'
		header  map[string]string
		kind    eventlog.FailureKind
		wantMsg string
		retry   time.Duration
	}{
		{"429 rate limit with Retry-After", 429, "error_429_rate_limit.json", map[string]string{"Retry-After": "20"},
			eventlog.FailureRateLimit, "Rate limit reached for gpt-4o", 20 * time.Second},
		{"500 server error", 500, "error_500.json", nil,
			eventlog.FailureServer, "The server had an error while processing your request", 0},
		{"503 overloaded with retry-after-ms", 503, "error_503.json", map[string]string{"Retry-After-Ms": "1500"},
			eventlog.FailureOverloaded, "The engine is currently overloaded", 1500 * time.Millisecond},
		{"529 overloaded", 529, `{"error":{"message":"Overloaded","type":"overloaded_error"}}`, nil,
			eventlog.FailureOverloaded, "Overloaded", 0},
		{"401 invalid key", 401, "error_401_invalid_key.json", nil,
			eventlog.FailureAuth, "Incorrect API key provided", 0},
		{"400 context length exceeded", 400, "error_400_context_length.json", nil,
			eventlog.FailureContextOverflow, "maximum context length is 128000 tokens", 0},
		{"400 invalid request", 400, "error_400_invalid_request.json", nil,
			eventlog.FailureInvalidRequest, "Invalid parameter: messages with role 'tool'", 0},
		{"400 content filter", 400, "error_400_content_filter.json", nil,
			eventlog.FailureContentFilter, "content management policy", 0},
		{"404 ollama string error", 404, "error_404_ollama_model.json", nil,
			eventlog.FailureInvalidRequest, `model "llama9:70b" not found`, 0},
		{"400 legacy vllm top-level error", 400, "error_400_vllm_legacy.json", nil,
			eventlog.FailureContextOverflow, "maximum context length is 4096 tokens", 0},
		{"502 html from a proxy", 502, "error_502_gateway.html", html,
			eventlog.FailureServer, "HTTP 502 Bad Gateway", 0},
		{"408 request timeout", 408, `{"error":{"message":"Request timed out."}}`, nil,
			eventlog.FailureTimeout, "Request timed out.", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if body[0] != '{' {
				body = fixture(t, body)
			}
			srv := serve(t, reply{status: tt.status, header: tt.header, body: body})
			p := newProvider(t, openai.Config{BaseURL: srv.URL, APIKey: "sk-test-key", DefaultModel: "m"})

			_, err := p.Complete(context.Background(), hello)

			f := requireFailure(t, err)
			require.Equal(t, tt.kind, f.Kind)
			require.Equal(t, tt.status, f.StatusCode)
			require.Equal(t, tt.retry, f.RetryAfter)
			require.Contains(t, f.Message, tt.wantMsg)
			require.LessOrEqual(t, len(f.Message), 503)
		})
	}
}

// A 2xx that arrived whole but is unusable is the server's failure; one
// whose body ends early is a network failure, as for every provider.
func TestCompleteMapsUnusableSuccessToFailure(t *testing.T) {
	tests := []struct {
		name string
		body string
		kind eventlog.FailureKind
	}{
		{"no choices", `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[]}`, eventlog.FailureServer},
		{"not json", `{"id": x}`, eventlog.FailureServer},
		{"cut short", `{"id":"x","choices":[`, eventlog.FailureNetwork},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, reply{status: 200, body: tt.body})
			p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

			_, err := p.Complete(context.Background(), hello)

			require.Equal(t, tt.kind, requireFailure(t, err).Kind)
		})
	}
}

func TestCompleteTruncatesLongProviderMessages(t *testing.T) {
	long := strings.Repeat("é", 600) // two bytes each: the cut must land on a rune boundary
	srv := serve(t, reply{status: 400, body: fmt.Sprintf(`{"error":{"message":%q}}`, long)})
	p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

	_, err := p.Complete(context.Background(), hello)

	msg := requireFailure(t, err).Message
	require.LessOrEqual(t, len(msg), 503)
	require.True(t, strings.HasSuffix(msg, "é…"))
}

func TestCompleteDoesNotRetry(t *testing.T) {
	for _, status := range []int{500, 503, 429, 408, 409} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv := serve(t, reply{status: status, header: map[string]string{"Retry-After": "0"}, body: `{"error":{"message":"x"}}`})
			p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

			_, err := p.Complete(context.Background(), hello)

			require.Error(t, err)
			require.EqualValues(t, 1, srv.calls.Load())
		})
	}
}

func TestCompleteMapsConnectionRefusedToNetwork(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL + "/v1"
	srv.Close() // nothing listens on the port any more
	p := newProvider(t, openai.Config{BaseURL: base, DefaultModel: "m"})

	_, err := p.Complete(context.Background(), hello)

	f := requireFailure(t, err)
	require.Equal(t, eventlog.FailureNetwork, f.Kind)
	require.Contains(t, f.Message, "connection refused")
	require.NotContains(t, f.Message, base, "the URL stays out of the durable message")
}

func TestCompleteMapsCanceledContextToCanceled(t *testing.T) {
	base, arrived := blockingServer(t)
	p := newProvider(t, openai.Config{BaseURL: base, DefaultModel: "m"})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()

	_, err := p.Complete(ctx, hello)

	require.Equal(t, eventlog.FailureCanceled, requireFailure(t, err).Kind)
	require.ErrorIs(t, err, context.Canceled)
}

func TestCompleteMapsDeadlinesToTimeout(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration // Config.Timeout
		ctx     func() (context.Context, context.CancelFunc)
	}{
		{"per-request timeout", 20 * time.Millisecond, func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}},
		{"caller deadline", 0, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 20*time.Millisecond)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, _ := blockingServer(t)
			p := newProvider(t, openai.Config{BaseURL: base, DefaultModel: "m", Timeout: tt.timeout})
			ctx, cancel := tt.ctx()
			defer cancel()

			_, err := p.Complete(ctx, hello)

			require.Equal(t, eventlog.FailureTimeout, requireFailure(t, err).Kind)
		})
	}
}
