package openai

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

// errErrorEvent marks a failure the server reported inside a 200 stream.
var errErrorEvent = errors.New("error event in stream")

// errorLabelKinds maps the "type" and "code" strings servers put on an
// error sent inside a stream, where no HTTP status says what went wrong.
var errorLabelKinds = map[string]eventlog.FailureKind{
	"rate_limit_exceeded":   eventlog.FailureRateLimit,
	"rate_limit_error":      eventlog.FailureRateLimit,
	"insufficient_quota":    eventlog.FailureRateLimit,
	"tokens":                eventlog.FailureRateLimit, // OpenAI's type for a TPM limit
	"requests":              eventlog.FailureRateLimit, // and for an RPM limit
	"overloaded_error":      eventlog.FailureOverloaded,
	"overloaded":            eventlog.FailureOverloaded,
	"server_overloaded":     eventlog.FailureOverloaded,
	"server_error":          eventlog.FailureServer,
	"api_error":             eventlog.FailureServer,
	"internal_error":        eventlog.FailureServer,
	"internal_server_error": eventlog.FailureServer,
	"authentication_error":  eventlog.FailureAuth,
	"invalid_api_key":       eventlog.FailureAuth,
	"permission_error":      eventlog.FailureAuth,
	"timeout":               eventlog.FailureTimeout,
	"invalid_request_error": eventlog.FailureInvalidRequest,
	"badrequesterror":       eventlog.FailureInvalidRequest, // vLLM
}

// streamError is the error object of an in-stream error event. Code is a
// string label on OpenAI and an HTTP status number on vLLM and OpenRouter.
type streamError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// errorEvent returns the failure a server reported as a stream event
// ({"error": ...}), or nil if data is not one. A null "error" field, which
// some servers put on every chunk, is not an error.
func (p *Provider) errorEvent(data []byte) error {
	var ev struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &ev) != nil || len(ev.Error) == 0 || string(ev.Error) == "null" {
		return nil
	}
	var e streamError
	if json.Unmarshal(ev.Error, &e.Message) != nil { // Ollama-style {"error": "text"}
		_ = json.Unmarshal(ev.Error, &e)
	}
	status, label := e.codeParts()
	kind := streamErrorKind(status, []string{e.Type, label}, string(data))
	msg := strings.TrimSpace(e.Message)
	if msg == "" {
		msg = "error event in stream"
	}
	return llm.Fail(kind, status, 0, llm.Truncate(p.scrubber.String(msg), llm.MaxMessageBytes), errErrorEvent)
}

// codeParts splits the code into an HTTP error status and a label.
func (e streamError) codeParts() (status int, label string) {
	var n json.Number
	if json.Unmarshal(e.Code, &n) == nil {
		label = n.String()
	} else {
		_ = json.Unmarshal(e.Code, &label)
	}
	if s, err := strconv.Atoi(label); err == nil && s >= 400 && s <= 599 {
		return s, ""
	}
	return 0, label
}

// streamErrorKind classifies an in-stream error: by its HTTP status when it
// carries one, else by what the text says about context or content policy,
// else by its labels. An error after a 200 with nothing to go on is the
// server's failure.
func streamErrorKind(status int, labels []string, body string) eventlog.FailureKind {
	if status != 0 {
		return llm.ClassifyHTTP(status, body)
	}
	if k := llm.ClassifyHTTP(http.StatusBadRequest, body); k != eventlog.FailureInvalidRequest {
		return k
	}
	for _, l := range labels {
		if k, ok := errorLabelKinds[strings.ToLower(l)]; ok {
			return k
		}
	}
	return eventlog.FailureServer
}
