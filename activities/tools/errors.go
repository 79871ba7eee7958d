package tools

import "errors"

// The package's errors: what NewRegistry refuses, what a call's arguments
// fail with, and the error a tool returns for the model to see.

// ErrNotIdempotent refuses a Local tool that does not declare itself
// Idempotent.
var ErrNotIdempotent = errors.New("a local tool must be idempotent: it runs again whenever its workflow task is lost; " +
	"make it read-only or dedupe on Call.IdempotencyKey, then set Idempotent, or do not make it Local")

// Typed errors of schemas and arguments; callers match with errors.Is.
var (
	// ErrInvalidSchema: a tool's Parameters is not a schema jsonschema-go
	// resolves, names a type JSON Schema has not or an empty enum, or New
	// could not infer it; NewRegistry refuses the tool.
	ErrInvalidSchema = errors.New("invalid schema")
	// ErrInvalidArguments: a call's arguments do not match its tool's
	// schema. Execute answers such a call with an error result.
	ErrInvalidArguments = errors.New("invalid arguments")
)

// typed is an error that matches a sentinel while keeping its own text,
// which names the offending field for the model or the tool's author.
type typed struct {
	sentinel, err error
}

func (e typed) Error() string       { return e.err.Error() }
func (e typed) Unwrap() []error     { return []error{e.sentinel, e.err} }
func invalidArgs(err error) error   { return typed{ErrInvalidArguments, err} }
func invalidSchema(err error) error { return typed{ErrInvalidSchema, err} }

// ModelVisibleError marks a tool failure the model should see and react to
// (for example "file not found") rather than one the activity should retry.
type ModelVisibleError struct {
	Err error
}

func (e *ModelVisibleError) Error() string { return e.Err.Error() }

func (e *ModelVisibleError) Unwrap() error { return e.Err }

// ErrorResult marks err as model-visible: Execute turns it into a Result with
// IsError instead of returning it. ErrorResult(nil) is nil.
func ErrorResult(err error) error {
	if err == nil {
		return nil
	}
	return &ModelVisibleError{Err: err}
}
