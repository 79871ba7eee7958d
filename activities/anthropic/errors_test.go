package anthropic_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/anthropic"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

func TestCallsMapErrorResponses(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string // fixture name or literal JSON
		header  map[string]string
		kind    eventlog.FailureKind
		wantMsg string
		retry   time.Duration
	}{
		{"429 rate limit with retry-after", 429, "error_429_rate_limit.json", map[string]string{"Retry-After": "17"},
			eventlog.FailureRateLimit, "would exceed the rate limit", 17 * time.Second},
		{"529 overloaded", 529, "error_529_overloaded.json", map[string]string{"Retry-After": "5"},
			eventlog.FailureOverloaded, "Overloaded", 5 * time.Second},
		{"500 api error", 500, "error_500_api_error.json", nil,
			eventlog.FailureServer, "Internal server error", 0},
		{"502 html from a proxy", 502, "error_502_gateway.html", map[string]string{"Content-Type": "text/html"},
			eventlog.FailureServer, "HTTP 502 Bad Gateway", 0},
		{"503 unavailable", 503, `{"error":"upstream unavailable"}`, nil,
			eventlog.FailureOverloaded, "upstream unavailable", 0},
		{"401 invalid key", 401, "error_401_authentication.json", nil,
			eventlog.FailureAuth, "invalid x-api-key", 0},
		{"403 permission", 403, "error_403_permission.json", nil,
			eventlog.FailureAuth, "does not have permission", 0},
		{"400 prompt too long", 400, "error_400_prompt_too_long.json", nil,
			eventlog.FailureContextOverflow, "prompt is too long: 211428 tokens > 200000 maximum", 0},
		{"400 input plus max tokens over the context limit", 400, "error_400_context_limit.json", nil,
			eventlog.FailureContextOverflow, "exceed context limit", 0},
		{"400 invalid request", 400, "error_400_invalid_request.json", nil,
			eventlog.FailureInvalidRequest, "unexpected `tool_use_id`", 0},
		{"404 unknown model", 404, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-9"}}`, nil,
			eventlog.FailureInvalidRequest, "model: claude-9", 0},
		{"413 request too large", 413, `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}`, nil,
			eventlog.FailureInvalidRequest, "Request exceeds the maximum size", 0},
	}
	for _, tt := range tests {
		for _, c := range bothCalls {
			t.Run(tt.name+"/"+c.name, func(t *testing.T) {
				srv := serve(t, reply{status: tt.status, header: tt.header, body: bodyOf(t, tt.body)})
				p := newProvider(t, anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-test", DefaultModel: "m"})

				_, err := c.do(p, context.Background(), hello)

				f := requireFailure(t, err)
				require.Equal(t, tt.kind, f.Kind)
				require.Equal(t, tt.status, f.StatusCode)
				require.Equal(t, tt.retry, f.RetryAfter)
				require.Contains(t, f.Message, tt.wantMsg)
				require.LessOrEqual(t, len(f.Message), 503)
				require.EqualValues(t, 1, srv.calls.Load())
			})
		}
	}
}

func TestRateLimitWithoutRetryAfterWaitsForTheExhaustedLimitToReset(t *testing.T) {
	now := time.Now().UTC()
	header := map[string]string{
		"Anthropic-Ratelimit-Requests-Remaining":     "12",
		"Anthropic-Ratelimit-Requests-Reset":         now.Add(time.Hour).Format(time.RFC3339),
		"Anthropic-Ratelimit-Input-Tokens-Remaining": "0",
		"Anthropic-Ratelimit-Input-Tokens-Reset":     now.Add(40 * time.Second).Format(time.RFC3339),
	}
	srv := serve(t, reply{status: 429, header: header, body: fixture(t, "error_429_rate_limit.json")})
	p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m"})

	_, err := p.Complete(context.Background(), hello)

	f := requireFailure(t, err)
	require.Equal(t, eventlog.FailureRateLimit, f.Kind)
	require.InDelta(t, 40*time.Second, f.RetryAfter, float64(3*time.Second))
}

// midStream is the start of a reply that a test ends with its own events.
const midStream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me"}}

`

func errorEvent(typ, msg string) string {
	return midStream + fmt.Sprintf("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":%q,\"message\":%q}}\n\n", typ, msg)
}

func TestStreamMapsErrorEventsByType(t *testing.T) {
	tests := []struct {
		name, body, wantMsg string
		kind                eventlog.FailureKind
	}{
		{"overloaded", "stream_error_overloaded.sse", "Overloaded", eventlog.FailureOverloaded},
		{"rate limit", errorEvent("rate_limit_error", "Number of request tokens has exceeded your rate limit"), "rate limit", eventlog.FailureRateLimit},
		{"api error", errorEvent("api_error", "Internal server error"), "Internal server error", eventlog.FailureServer},
		{"timeout", errorEvent("timeout_error", "Stream timed out"), "Stream timed out", eventlog.FailureTimeout},
		{"prompt too long", errorEvent("invalid_request_error", "prompt is too long: 201000 tokens > 200000 maximum"), "prompt is too long", eventlog.FailureContextOverflow},
		{"invalid request", errorEvent("invalid_request_error", "bad thing"), "bad thing", eventlog.FailureInvalidRequest},
		{"authentication", errorEvent("authentication_error", "invalid x-api-key"), "invalid x-api-key", eventlog.FailureAuth},
		{"unknown type", errorEvent("mystery_error", "???"), "???", eventlog.FailureUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, reply{status: 200, body: bodyOf(t, tt.body)})
			p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m"})
			var chunks []llm.Chunk

			_, err := p.Stream(context.Background(), hello, func(c llm.Chunk) { chunks = append(chunks, c) })

			f := requireFailure(t, err)
			require.Equal(t, tt.kind, f.Kind)
			require.Contains(t, f.Message, tt.wantMsg)
			require.Zero(t, f.StatusCode, "the stream itself answered 200")
			require.Equal(t, []llm.Chunk{{Text: "Let me"}}, chunks)
			require.EqualValues(t, 1, srv.calls.Load())
		})
	}
}

func TestStreamCutBeforeMessageStopIsNetworkFailure(t *testing.T) {
	tests := []struct {
		name  string
		abort bool
	}{
		{"server ends the response early", false},
		{"connection drops mid-body", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, reply{status: 200, body: fixture(t, "stream_truncated.sse"), abort: tt.abort})
			p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m"})
			var chunks []llm.Chunk

			_, err := p.Stream(context.Background(), hello, func(c llm.Chunk) { chunks = append(chunks, c) })

			require.Equal(t, eventlog.FailureNetwork, requireFailure(t, err).Kind)
			require.Len(t, chunks, 2, "deltas before the cut were emitted")
			require.EqualValues(t, 1, srv.calls.Load())
		})
	}
}

func TestStreamMalformedEventIsServerFailure(t *testing.T) {
	srv := serve(t, reply{status: 200, body: midStream + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\n\n"})
	p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m"})

	_, err := p.Stream(context.Background(), hello, nil)

	require.Equal(t, eventlog.FailureServer, requireFailure(t, err).Kind)
}

func TestCallsDoNotRetry(t *testing.T) {
	for _, status := range []int{500, 529, 503, 429, 408, 409} {
		for _, c := range bothCalls {
			t.Run(fmt.Sprint(status, "/", c.name), func(t *testing.T) {
				header := map[string]string{"Retry-After": "0", "X-Should-Retry": "true"}
				srv := serve(t, reply{status: status, header: header, body: `{"type":"error","error":{"type":"api_error","message":"x"}}`})
				p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m"})

				_, err := c.do(p, context.Background(), hello)

				require.Error(t, err)
				require.EqualValues(t, 1, srv.calls.Load())
			})
		}
	}
}

func TestCallsMapConnectionRefusedToNetwork(t *testing.T) {
	for _, c := range bothCalls {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.NotFoundHandler())
			base := srv.URL
			srv.Close() // nothing listens on the port any more
			p := newProvider(t, anthropic.Config{BaseURL: base, DefaultModel: "m"})

			_, err := c.do(p, context.Background(), hello)

			f := requireFailure(t, err)
			require.Equal(t, eventlog.FailureNetwork, f.Kind)
			require.Contains(t, f.Message, "connection refused")
			require.NotContains(t, f.Message, base, "the URL stays out of the durable message")
		})
	}
}

func TestCallsMapCanceledContextToCanceled(t *testing.T) {
	for _, prefix := range []string{"", midStream} {
		for _, c := range bothCalls {
			if prefix != "" && c.name != "stream" {
				continue
			}
			t.Run(fmt.Sprintf("%s/mid-stream=%t", c.name, prefix != ""), func(t *testing.T) {
				base, arrived := blockingServer(t, prefix)
				p := newProvider(t, anthropic.Config{BaseURL: base, DefaultModel: "m"})
				ctx, cancel := context.WithCancel(context.Background())
				go func() {
					<-arrived
					cancel()
				}()

				_, err := c.do(p, ctx, hello)

				require.Equal(t, eventlog.FailureCanceled, requireFailure(t, err).Kind)
				require.ErrorIs(t, err, context.Canceled)
			})
		}
	}
}

func TestCallsMapDeadlinesToTimeout(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration // Config.Timeout
		ctx     func() (context.Context, context.CancelFunc)
		prefix  string // stream sent before the server stalls
	}{
		{"per-request timeout", 20 * time.Millisecond, func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, ""},
		{"caller deadline", 0, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 20*time.Millisecond)
		}, ""},
		{"per-request timeout mid-stream", 50 * time.Millisecond, func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, midStream},
		{"caller deadline mid-stream", 0, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, midStream},
	}
	for _, tt := range tests {
		for _, c := range bothCalls {
			if tt.prefix != "" && c.name != "stream" {
				continue
			}
			t.Run(tt.name+"/"+c.name, func(t *testing.T) {
				base, _ := blockingServer(t, tt.prefix)
				p := newProvider(t, anthropic.Config{BaseURL: base, DefaultModel: "m", Timeout: tt.timeout})
				ctx, cancel := tt.ctx()
				defer cancel()

				_, err := c.do(p, ctx, hello)

				require.Equal(t, eventlog.FailureTimeout, requireFailure(t, err).Kind)
			})
		}
	}
}

func TestCallsTruncateLongProviderMessages(t *testing.T) {
	long := strings.Repeat("é", 600) // two bytes each: the cut must land on a rune boundary
	srv := serve(t, reply{status: 400, body: fmt.Sprintf(`{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, long)})
	p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m"})

	_, err := p.Complete(context.Background(), hello)

	msg := requireFailure(t, err).Message
	require.LessOrEqual(t, len(msg), 503)
	require.True(t, strings.HasSuffix(msg, "é…"))
}
