package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

// urlErr wraps err as the HTTP client does, URL and all.
func urlErr(err error) error {
	return &url.Error{Op: "Post", URL: "https://api.example.com/v1/chat?key=sk-secret", Err: err}
}

func canceledCtx() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func expiredCtx() context.Context {
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	_ = cancel // the deadline has passed; the context is done either way
	return ctx
}

// The cases both providers' adapters met, with the same answer for each:
// what the OpenAI SDK and the Anthropic SDK return for them is the same
// error from the same HTTP client.
func TestTransportFailureClassifiesEveryProvidersCases(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	syntax := json.Unmarshal([]byte(`{"id": x}`), new(any))
	tests := []struct {
		name        string
		ctx         context.Context
		err         error
		gotResponse bool
		kind        eventlog.FailureKind
		message     string
	}{
		{"context canceled", context.Background(), urlErr(context.Canceled), false,
			eventlog.FailureCanceled, "request canceled: context canceled"},
		{"canceled caller, any error", canceledCtx(), urlErr(errors.New("use of closed network connection")), false,
			eventlog.FailureCanceled, "request canceled: use of closed network connection"},
		{"deadline exceeded", context.Background(), urlErr(context.DeadlineExceeded), false,
			eventlog.FailureTimeout, "request timed out: context deadline exceeded"},
		{"caller's deadline passed", expiredCtx(), urlErr(io.ErrUnexpectedEOF), true,
			eventlog.FailureTimeout, "request timed out: unexpected EOF"},
		{"network timeout", context.Background(), urlErr(&net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}), false,
			eventlog.FailureTimeout, "request timed out: read: i/o timeout"},
		{"connection refused", context.Background(), urlErr(refused), false,
			eventlog.FailureNetwork, "connection failed: dial tcp: connect: connection refused"},
		{"connection reset", context.Background(), fmt.Errorf("read body: %w", syscall.ECONNRESET), true,
			eventlog.FailureNetwork, "connection failed: read body: connection reset by peer"},
		{"closed before any response", context.Background(), urlErr(io.EOF), false,
			eventlog.FailureNetwork, "connection failed: EOF"},
		{"2xx body cut short", context.Background(), fmt.Errorf("error parsing response json: %w", io.ErrUnexpectedEOF), true,
			eventlog.FailureNetwork, "connection failed: error parsing response json: unexpected EOF"},
		{"2xx body not json", context.Background(), fmt.Errorf("error parsing response json: %w", syntax), true,
			eventlog.FailureServer, "unreadable response: error parsing response json: invalid character 'x' looking for beginning of value"},
		{"no response, unknown error", context.Background(), errors.New("tls: bad certificate"), false,
			eventlog.FailureUnknown, "request failed: tls: bad certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := llm.TransportFailure(tt.ctx, tt.err, tt.gotResponse, llm.NewScrubber("sk-secret"))
			require.Equal(t, tt.kind, e.Failure.Kind)
			require.Equal(t, tt.message, e.Failure.Message)
			require.Zero(t, e.Failure.StatusCode)
			require.NotContains(t, e.Error(), "sk-secret")
			require.NotContains(t, e.Failure.Message, "api.example.com", "the URL stays out of the durable message")
			require.ErrorIs(t, e, tt.err, "the cause stays in the chain for errors.Is")
		})
	}
}

func TestStreamCutFailureIsNetworkUnlessCanceledTimedOutOrGarbled(t *testing.T) {
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		kind eventlog.FailureKind
		what string
	}{
		{"closed cleanly but early", context.Background(), errors.New("connection closed before the response finished"),
			eventlog.FailureNetwork, "stream interrupted"},
		{"dropped mid-body", context.Background(), io.ErrUnexpectedEOF, eventlog.FailureNetwork, "stream interrupted"},
		{"reset", context.Background(), syscall.ECONNRESET, eventlog.FailureNetwork, "stream interrupted"},
		{"canceled", canceledCtx(), context.Canceled, eventlog.FailureCanceled, "request canceled"},
		{"deadline", context.Background(), context.DeadlineExceeded, eventlog.FailureTimeout, "request timed out"},
		{"malformed event", context.Background(), &json.SyntaxError{Offset: 3}, eventlog.FailureServer, "malformed stream event"},
		{"event of the wrong shape", context.Background(), &json.UnmarshalTypeError{Value: "number", Type: reflect.TypeFor[string]()}, eventlog.FailureServer, "malformed stream event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := llm.StreamCutFailure(tt.ctx, tt.err, llm.Scrubber{})
			require.Equal(t, tt.kind, e.Failure.Kind)
			require.True(t, strings.HasPrefix(e.Failure.Message, tt.what+": "), e.Failure.Message)
		})
	}
}

func TestHTTPFailureClassifiesStatusBodyAndRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		msg    string
		want   eventlog.Failure
	}{
		{"openai 429 with retry-after-ms", 429, map[string]string{"Retry-After-Ms": "1500", "Retry-After": "9"},
			`{"error":{"code":"rate_limit_exceeded"}}`, "Rate limit reached",
			eventlog.Failure{Kind: eventlog.FailureRateLimit, StatusCode: 429, RetryAfter: 1500 * time.Millisecond, Message: "Rate limit reached"}},
		{"anthropic 529 overloaded", 529, map[string]string{"Retry-After": "3"},
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded",
			eventlog.Failure{Kind: eventlog.FailureOverloaded, StatusCode: 529, RetryAfter: 3 * time.Second, Message: "Overloaded"}},
		{"context overflow from the body", 400, nil,
			`{"error":{"code":"context_length_exceeded"}}`, "too long",
			eventlog.Failure{Kind: eventlog.FailureContextOverflow, StatusCode: 400, Message: "too long"}},
		{"auth", 401, nil, `{"error":{"code":"invalid_api_key"}}`, "Incorrect API key sk-secret",
			eventlog.Failure{Kind: eventlog.FailureAuth, StatusCode: 401, Message: "Incorrect API key [redacted]"}},
		{"no message falls back to the status line", 502, nil, `<html>Bad Gateway</html>`, "",
			eventlog.Failure{Kind: eventlog.FailureServer, StatusCode: 502, Message: "HTTP 502 Bad Gateway"}},
		{"gateway timeout", 504, nil, ``, "",
			eventlog.Failure{Kind: eventlog.FailureTimeout, StatusCode: 504, Message: "HTTP 504 Gateway Timeout"}},
		{"long message is cut", 400, nil, `{}`, strings.Repeat("x", 600),
			eventlog.Failure{Kind: eventlog.FailureInvalidRequest, StatusCode: 400, Message: strings.Repeat("x", llm.MaxMessageBytes) + "…"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &http.Response{StatusCode: tt.status, Header: http.Header{}}
			for k, v := range tt.header {
				res.Header.Set(k, v)
			}
			e := llm.HTTPFailure(res, tt.body, tt.msg, llm.NewScrubber("sk-secret"))
			require.Equal(t, tt.want, e.Failure)
			require.EqualError(t, e.Err, fmt.Sprintf("http status %d", tt.status), "nothing from the request is kept")
		})
	}
}
