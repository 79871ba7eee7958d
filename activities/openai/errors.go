package openai

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

	"github.com/openai/openai-go/v3"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

const (
	maxMessageBytes = 500      // provider text kept in a failure message
	maxErrorBody    = 64 << 10 // error response bytes read for classification
)

// failure turns an SDK error into an *llm.Error. captured is the response the
// SDK saw, if any (option.WithResponseInto).
func (p *Provider) failure(ctx context.Context, err error, captured *http.Response) error {
	if res := errorResponse(err, captured); res != nil {
		return p.httpFailure(err, res)
	}
	kind, what := transportKind(ctx, err, captured != nil)
	msg := p.scrubber.String(what + ": " + llm.Cause(err))
	return llm.Fail(kind, 0, 0, llm.Truncate(msg, maxMessageBytes), p.scrubber.Err(err))
}

// errorResponse finds the HTTP error response. The SDK returns *openai.Error
// only when the body's "error" field decodes as an object; for other shapes
// (Ollama's {"error":"text"}) it returns a bare JSON error, so fall back to
// the captured response.
func errorResponse(err error, captured *http.Response) *http.Response {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && apiErr.Response != nil {
		return apiErr.Response
	}
	if captured != nil && captured.StatusCode >= 400 {
		return captured
	}
	return nil
}

// httpFailure classifies a non-2xx response. The SDK error is not kept in
// the chain: it holds the request, Authorization header included.
func (p *Provider) httpFailure(err error, res *http.Response) error {
	body := llm.ReadBody(res, maxErrorBody)
	msg := apiMessage(err)
	if msg == "" {
		msg = bodyMessage(body)
	}
	if msg == "" {
		msg = fmt.Sprintf("HTTP %d %s", res.StatusCode, http.StatusText(res.StatusCode))
	}
	kind := llm.ClassifyHTTP(res.StatusCode, body)
	wait := llm.ParseRetryAfter(res.Header, time.Now())
	return llm.Fail(kind, res.StatusCode, wait, llm.Truncate(p.scrubber.String(msg), maxMessageBytes), fmt.Errorf("http status %d", res.StatusCode))
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
	case errors.As(err, &netErr), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return eventlog.FailureNetwork, "connection failed"
	case gotResponse:
		// A 2xx arrived but did not decode; the JSON decoder reports a
		// truncated body as a bare io.ErrUnexpectedEOF, so test this first.
		return eventlog.FailureServer, "unreadable response"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return eventlog.FailureNetwork, "connection failed"
	default:
		return eventlog.FailureUnknown, "request failed"
	}
}

func apiMessage(err error) string {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return strings.TrimSpace(apiErr.Message)
	}
	return ""
}

// bodyMessage reads the common non-OpenAI error shapes: {"error":"text"}
// (Ollama), {"error":{"message":...}}, {"message":...} (older vLLM) and
// {"detail":"text"} (FastAPI servers).
func bodyMessage(body string) string {
	var b struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal([]byte(body), &b) != nil {
		return ""
	}
	for _, m := range []string{messageOf(b.Error), b.Message, messageOf(b.Detail)} {
		if m = strings.TrimSpace(m); m != "" {
			return m
		}
	}
	return ""
}

// messageOf reads a JSON value that is either a string or {"message": ...}.
func messageOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil {
		return o.Message
	}
	return ""
}
