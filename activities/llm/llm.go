package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// Request is one model call as a provider adapter receives it.
type Request struct {
	Model     string
	MaxTokens int
	// Effort is the reasoning effort ("low", "medium", "high") for providers
	// that have one; empty leaves the provider's default.
	Effort   string
	Messages []eventlog.Message
	Tools    []ToolSpec
	// CacheKey names whose conversation this is, the same for all of an
	// agent's calls across Continue-As-New (its agent ID), for providers
	// that route calls sharing a prompt prefix by a key; empty sends none.
	CacheKey string
}

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string
	Description string
	// Parameters is the JSON schema of the tool's arguments (an object schema).
	Parameters json.RawMessage
}

// Error is a normalised provider failure. Adapters return it (possibly
// wrapped) for every failed call so the model activity can turn it into a
// typed ApplicationError with an honest retryable flag.
type Error struct {
	Failure eventlog.Failure
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Failure.Kind, e.Failure.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Failure.Kind, e.Failure.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Fail builds an *Error.
func Fail(kind eventlog.FailureKind, status int, retryAfter time.Duration, msg string, err error) *Error {
	return &Error{Failure: eventlog.Failure{Kind: kind, Message: msg, StatusCode: status, RetryAfter: retryAfter}, Err: err}
}

// AsError finds an *Error in err's chain.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
