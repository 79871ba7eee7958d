package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
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
	return llm.TransportFailure(ctx, err, captured != nil, p.scrubber)
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
	return llm.StreamCutFailure(ctx, err, p.scrubber)
}

// httpFailure classifies a non-2xx response as every provider's is, then
// refines it with what only Anthropic says: its wording for a context
// overflow and, for a 429 without retry-after, its rate-limit reset
// headers. The SDK error is not kept in the chain: it holds the request,
// x-api-key header included.
func (p *Provider) httpFailure(res *http.Response) error {
	body := llm.ReadBody(res, llm.MaxErrorBody)
	e := llm.HTTPFailure(res, body, bodyMessage(body), p.scrubber)
	e.Failure.Kind = refine(e.Failure.Kind, body)
	if e.Failure.RetryAfter == 0 && res.StatusCode == http.StatusTooManyRequests {
		e.Failure.RetryAfter = rateLimitReset(res.Header, time.Now())
	}
	return e
}

// eventFailure classifies an error event received mid-stream. There is no
// HTTP error status to record, so StatusCode stays 0.
func (p *Provider) eventFailure(apiErr *sdk.Error) error {
	body, typ := apiErr.RawJSON(), string(apiErr.Type())
	msg := bodyMessage(body)
	if msg == "" {
		msg = "error event in stream"
	}
	kind := refine(llm.ClassifyHTTP(errorTypeStatus[typ], body), body)
	return llm.Fail(kind, 0, 0, llm.Truncate(p.scrubber.String(msg), llm.MaxMessageBytes), fmt.Errorf("stream error event %q", p.scrubber.String(typ)))
}

// refine corrects a kind from llm.ClassifyHTTP with Anthropic's wording for
// a prompt plus max_tokens that overflows the window: "input length and
// `max_tokens` exceed context limit".
func refine(kind eventlog.FailureKind, body string) eventlog.FailureKind {
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
