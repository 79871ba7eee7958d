package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/eventlog"
)

func TestStreamMapsErrorEvents(t *testing.T) {
	start := sse(`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"The"},"finish_reason":null}]}`)
	tests := []struct {
		name    string
		body    string // fixture name, or an error payload appended to start
		kind    eventlog.FailureKind
		status  int
		wantMsg string
	}{
		{"openai rate limit", "stream_error_rate_limit.sse", eventlog.FailureRateLimit, 0, "Rate limit reached for gpt-4.1"},
		{"openai server error", "stream_error_server.sse", eventlog.FailureServer, 0, "The server had an error"},
		{"vllm engine failure with status code", "stream_error_vllm.sse", eventlog.FailureServer, 500, "EngineCore encountered an issue"},
		{"numeric 429 code", `{"error":{"code":429,"message":"Provider returned error"}}`, eventlog.FailureRateLimit, 429, "Provider returned error"},
		{"string status code", `{"error":{"code":"503","message":"no capacity"}}`, eventlog.FailureOverloaded, 503, "no capacity"},
		{"context overflow by code", `{"error":{"message":"too long","type":"invalid_request_error","code":"context_length_exceeded"}}`,
			eventlog.FailureContextOverflow, 0, "too long"},
		{"content filter by message", `{"error":{"message":"Output blocked by content policy"}}`, eventlog.FailureContentFilter, 0, "content policy"},
		{"overloaded type", `{"error":{"type":"overloaded_error","message":"Overloaded"}}`, eventlog.FailureOverloaded, 0, "Overloaded"},
		{"ollama string error", `{"error":"llama runner process has terminated"}`, eventlog.FailureServer, 0, "llama runner process has terminated"},
		{"empty error object", `{"error":{}}`, eventlog.FailureServer, 0, "error event in stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := start + sse(tt.body)
			if tt.body[0] != '{' {
				body = fixture(t, tt.body)
			}
			srv := serveStream(t, body)
			p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

			chunks, _, err := stream(context.Background(), p, hello)

			f := requireFailure(t, err)
			require.Equal(t, tt.kind, f.Kind)
			require.Equal(t, tt.status, f.StatusCode)
			require.Contains(t, f.Message, tt.wantMsg)
			require.Len(t, chunks, 1, "the delta before the error was emitted")
			require.EqualValues(t, 1, srv.calls.Load())
		})
	}
}

func TestStreamMapsHTTPErrorsBeforeStreamingAsComplete(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		header map[string]string
		kind   eventlog.FailureKind
		retry  time.Duration
	}{
		{"429 with Retry-After", 429, "error_429_rate_limit.json", map[string]string{"Retry-After": "20"}, eventlog.FailureRateLimit, 20 * time.Second},
		{"500", 500, "error_500.json", nil, eventlog.FailureServer, 0},
		{"503 with retry-after-ms", 503, "error_503.json", map[string]string{"Retry-After-Ms": "1500"}, eventlog.FailureOverloaded, 1500 * time.Millisecond},
		{"400 context length", 400, "error_400_context_length.json", nil, eventlog.FailureContextOverflow, 0},
		{"404 ollama string error", 404, "error_404_ollama_model.json", nil, eventlog.FailureInvalidRequest, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, reply{status: tt.status, header: tt.header, body: fixture(t, tt.body)})
			p := newProvider(t, openai.Config{BaseURL: srv.URL, APIKey: "sk-test-key", DefaultModel: "m"})

			chunks, _, err := stream(context.Background(), p, hello)

			f := requireFailure(t, err)
			require.Equal(t, tt.kind, f.Kind)
			require.Equal(t, tt.status, f.StatusCode)
			require.Equal(t, tt.retry, f.RetryAfter)
			require.Empty(t, chunks)
			require.EqualValues(t, 1, srv.calls.Load(), "the SDK must not retry")
		})
	}
}

func TestStreamMapsCutStreamToNetwork(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		chunks  []llm.Chunk
	}{
		{"clean close mid tool call", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, fixture(t, "stream_truncated.sse"))
		}, []llm.Chunk{
			{ToolIndex: 0, ToolID: "call_FthC9qRpsL5kBpwwyw6c7j4k", ToolName: "get_weather"},
			{ToolIndex: 0, Arguments: `{"location"`},
		}},
		{"connection dropped mid chunk", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, firstTextEvent)
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // closes the connection without ending the chunked body
		}, []llm.Chunk{{Text: "Hel"}}},
		{"empty body", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			t.Cleanup(srv.Close)
			p := newProvider(t, openai.Config{BaseURL: srv.URL + "/v1", DefaultModel: "m"})

			chunks, _, err := stream(context.Background(), p, hello)

			require.Equal(t, eventlog.FailureNetwork, requireFailure(t, err).Kind)
			require.Equal(t, tt.chunks, chunks)
		})
	}
}

func TestStreamAcceptsFinishWithoutDone(t *testing.T) {
	srv := serveStream(t, sse(`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`))
	p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

	_, msg, err := stream(context.Background(), p, hello)

	require.NoError(t, err)
	require.Equal(t, eventlog.AssistantMessage{Text: "ok", FinishReason: eventlog.FinishStop, Provider: "openai", Model: "m"}, msg)
}

func TestStreamMapsUnusableEventsToServerFailure(t *testing.T) {
	tests := []struct{ name, body string }{
		{"malformed chunk", sse(`{"id":"c","choices":[`)},
		{"done without any choice", sse(`{"id":"c","model":"m","choices":[],"usage":{"prompt_tokens":1}}`, `[DONE]`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serveStream(t, tt.body)
			p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

			_, _, err := stream(context.Background(), p, hello)

			require.Equal(t, eventlog.FailureServer, requireFailure(t, err).Kind)
		})
	}
}

func TestStreamMapsCancellationMidStreamToCanceled(t *testing.T) {
	base := stallingServer(t, firstTextEvent)
	p := newProvider(t, openai.Config{BaseURL: base, DefaultModel: "m"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var chunks []llm.Chunk

	_, err := p.Stream(ctx, hello, func(c llm.Chunk) {
		chunks = append(chunks, c)
		cancel() // the caller gives up once the stream is under way
	})

	require.Equal(t, eventlog.FailureCanceled, requireFailure(t, err).Kind)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, []llm.Chunk{{Text: "Hel"}}, chunks)
}

func TestStreamMapsDeadlinesMidStreamToTimeout(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration // Config.Timeout
		ctx     func() (context.Context, context.CancelFunc)
	}{
		{"per-request timeout", 50 * time.Millisecond, func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}},
		{"caller deadline", 0, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := stallingServer(t, firstTextEvent)
			p := newProvider(t, openai.Config{BaseURL: base, DefaultModel: "m", Timeout: tt.timeout})
			ctx, cancel := tt.ctx()
			defer cancel()

			_, _, err := stream(ctx, p, hello)

			require.Equal(t, eventlog.FailureTimeout, requireFailure(t, err).Kind)
		})
	}
}

func TestStreamErrorsNeverContainAPIKey(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		template string
	}{
		{"error status before streaming", 401, `{"error":{"message":"Incorrect API key provided: %s"}}`},
		{"error event in stream", 200, sse(`{"error":{"message":"bad credential %s","type":"server_error"}}`)},
		{"ollama string error event", 200, sse(`{"error":"forbidden for %s"}`)},
		{"unreadable event", 200, sse(`{"choices":[%s`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := echoServer(t, tt.status, tt.template)
			p := newProvider(t, openai.Config{BaseURL: base, APIKey: secretKey, DefaultModel: "m"})

			_, _, err := stream(context.Background(), p, hello)

			requireNoSecret(t, err)
		})
	}
}

func TestStreamRejectsUnsendableRequestWithoutCallingServer(t *testing.T) {
	srv := serveStream(t, fixture(t, "stream_text.sse"))
	p := newProvider(t, openai.Config{BaseURL: srv.URL})

	_, _, err := stream(context.Background(), p, hello) // no model anywhere

	require.Equal(t, eventlog.FailureInvalidRequest, requireFailure(t, err).Kind)
	require.Zero(t, srv.calls.Load())
}

func ExampleProvider_Stream() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, sse(
			`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"Bonjour"},"finish_reason":null}]}`,
			`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"!"},"finish_reason":"stop"}]}`,
			`[DONE]`))
	}))
	defer srv.Close()
	p, _ := openai.New(openai.Config{BaseURL: srv.URL + "/v1", DefaultModel: "m"})

	msg, err := p.Stream(context.Background(), hello, func(c llm.Chunk) { fmt.Printf("%q\n", c.Text) })

	fmt.Println(msg.Text, msg.FinishReason, err)
	// Output:
	// "Bonjour"
	// "!"
	// Bonjour! stop <nil>
}
