package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

const (
	maxMessageBytes = 500      // provider text kept in a failure message
	maxErrorBody    = 64 << 10 // error response bytes read for classification
)

// errorTypeStatus is the HTTP status the API gives each error type. An error
// event inside a stream arrives on a 200 response, so its type is all there
// is to classify it by.
var errorTypeStatus = map[string]int{
	"invalid_request_error": http.StatusBadRequest,
	"authentication_error":  http.StatusUnauthorized,
	"billing_error":         http.StatusPaymentRequired,
	"permission_error":      http.StatusForbidden,
	"not_found_error":       http.StatusNotFound,
	"request_too_large":     http.StatusRequestEntityTooLarge,
	"rate_limit_error":      http.StatusTooManyRequests,
	"api_error":             http.StatusInternalServerError,
	"timeout_error":         http.StatusGatewayTimeout,
	"overloaded_error":      529,
}

// failure turns an error from a call that produced no stream into an
// *llm.Error. captured is the response the SDK saw, if any.
func (p *Provider) failure(ctx context.Context, err error, captured *http.Response) error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) && apiErr.Response != nil {
		return p.httpFailure(apiErr.Response)
	}
	if captured != nil && captured.StatusCode >= 400 {
		return p.httpFailure(captured)
	}
	kind, what := transportKind(ctx, err, captured != nil)
	return llm.Fail(kind, 0, 0, llm.Truncate(p.scrubber.String(what+": "+llm.Cause(err)), maxMessageBytes), p.scrubber.Err(err))
}

// streamFailure classifies a failed stream. The SDK reports an error event
// as an *sdk.Error carrying the stream's own 2xx status.
func (p *Provider) streamFailure(ctx context.Context, err error, captured *http.Response) error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode < 400 {
		return p.eventFailure(apiErr)
	}
	if captured == nil || captured.StatusCode >= 400 {
		return p.failure(ctx, err, captured)
	}
	kind, what := streamKind(ctx, err)
	return llm.Fail(kind, 0, 0, llm.Truncate(p.scrubber.String(what+": "+llm.Cause(err)), maxMessageBytes), p.scrubber.Err(err))
}

// httpFailure classifies a non-2xx response. The SDK error is not kept in
// the chain: it holds the request, x-api-key header included.
func (p *Provider) httpFailure(res *http.Response) error {
	body := llm.ReadBody(res, maxErrorBody)
	msg := bodyMessage(body)
	if msg == "" {
		msg = fmt.Sprintf("HTTP %d %s", res.StatusCode, http.StatusText(res.StatusCode))
	}
	wait := llm.ParseRetryAfter(res.Header, time.Now())
	if wait == 0 && res.StatusCode == http.StatusTooManyRequests {
		wait = rateLimitReset(res.Header, time.Now())
	}
	kind := classify(res.StatusCode, body)
	return llm.Fail(kind, res.StatusCode, wait, llm.Truncate(p.scrubber.String(msg), maxMessageBytes), fmt.Errorf("http status %d", res.StatusCode))
}

// eventFailure classifies an error event received mid-stream. There is no
// HTTP error status to record, so StatusCode stays 0.
func (p *Provider) eventFailure(apiErr *sdk.Error) error {
	body, typ := apiErr.RawJSON(), string(apiErr.Type())
	msg := bodyMessage(body)
	if msg == "" {
		msg = "error event in stream"
	}
	kind := classify(errorTypeStatus[typ], body)
	return llm.Fail(kind, 0, 0, llm.Truncate(p.scrubber.String(msg), maxMessageBytes), fmt.Errorf("stream error event %q", p.scrubber.String(typ)))
}

// classify refines llm.ClassifyHTTP with Anthropic's wording for a prompt
// plus max_tokens that overflows the window: "input length and `max_tokens`
// exceed context limit".
func classify(status int, body string) eventlog.FailureKind {
	kind := llm.ClassifyHTTP(status, body)
	if kind == eventlog.FailureInvalidRequest && strings.Contains(strings.ToLower(body), "exceed context limit") {
		return eventlog.FailureContextOverflow
	}
	return kind
}

// rateLimitReset reads the anthropic-ratelimit-*-reset headers (RFC 3339)
// of the limits that are used up, and returns the wait until the last of
// them resets. It is the fallback when a 429 carries no retry-after.
func rateLimitReset(h http.Header, now time.Time) time.Duration {
	var wait time.Duration
	for _, limit := range []string{"requests", "tokens", "input-tokens", "output-tokens"} {
		prefix := "Anthropic-Ratelimit-" + limit
		if strings.TrimSpace(h.Get(prefix+"-Remaining")) != "0" {
			continue
		}
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(h.Get(prefix+"-Reset")))
		if err == nil && t.Sub(now) > wait {
			wait = t.Sub(now)
		}
	}
	return wait
}

// transportKind classifies a failure that produced no HTTP error status.
func transportKind(ctx context.Context, err error, gotResponse bool) (eventlog.FailureKind, string) {
	var netErr net.Error
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		return eventlog.FailureCanceled, "request canceled"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return eventlog.FailureTimeout, "request timed out"
	case errors.As(err, &netErr) && netErr.Timeout():
		return eventlog.FailureTimeout, "request timed out"
	case errors.As(err, &netErr), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		// A body cut short surfaces as an unexpected EOF, whether the SDK
		// was reading it or decoding it.
		return eventlog.FailureNetwork, "connection failed"
	case gotResponse:
		return eventlog.FailureServer, "unreadable response"
	default:
		return eventlog.FailureUnknown, "request failed"
	}
}

// streamKind classifies a failure after the stream started: garbage in an
// event is the server's, anything else broke the connection.
func streamKind(ctx context.Context, err error) (eventlog.FailureKind, string) {
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return eventlog.FailureServer, "malformed stream event"
	}
	kind, what := transportKind(ctx, err, false)
	if kind == eventlog.FailureUnknown || kind == eventlog.FailureNetwork {
		return eventlog.FailureNetwork, "stream interrupted"
	}
	return kind, what
}

// bodyMessage reads Anthropic's {"type":"error","error":{"message":...}} and
// the shapes gateways in front of it use: {"error":"text"} and
// {"message":...}.
func bodyMessage(body string) string {
	var b struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal([]byte(body), &b) != nil {
		return ""
	}
	var text string
	if json.Unmarshal(b.Error, &text) != nil {
		var o struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(b.Error, &o)
		text = o.Message
	}
	if text = strings.TrimSpace(text); text != "" {
		return text
	}
	return strings.TrimSpace(b.Message)
}
