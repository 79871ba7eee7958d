package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"

	"github.com/tetherdev/tether/activities/llm"
)

// failure turns an SDK error into an *llm.Error. captured is the response the
// SDK saw, if any (option.WithResponseInto).
func (p *Provider) failure(ctx context.Context, err error, captured *http.Response) error {
	if res := errorResponse(err, captured); res != nil {
		return p.httpFailure(err, res)
	}
	return llm.TransportFailure(ctx, err, captured != nil, p.scrubber)
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

// httpFailure classifies a non-2xx response by its status and body; only
// the message is read the OpenAI way. The SDK error is not kept in the
// chain: it holds the request, Authorization header included.
func (p *Provider) httpFailure(err error, res *http.Response) error {
	body := llm.ReadBody(res, llm.MaxErrorBody)
	msg := apiMessage(err)
	if msg == "" {
		msg = bodyMessage(body)
	}
	return llm.HTTPFailure(res, body, msg, p.scrubber)
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
