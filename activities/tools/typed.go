package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// ToolOption sets a field of the Tool that New makes: its Mode, Local or
// Idempotent. Any func(*Tool) is one; options apply after New has set the
// rest.
type ToolOption func(*Tool)

// WithMode schedules the tool's calls in mode m (Parallel by default).
func WithMode(m Mode) ToolOption { return func(t *Tool) { t.Mode = m } }

// AsIdempotent declares that the tool only reads or computes, or dedupes its
// side effects on the call's idempotency key (see Tool.Idempotent).
func AsIdempotent() ToolOption { return func(t *Tool) { t.Idempotent = true } }

// AsLocal runs the tool as a local activity (see Tool.Local); the tool must
// also be AsIdempotent.
func AsLocal() ToolOption { return func(t *Tool) { t.Local = true } }

// New makes a tool of fn, which takes its arguments as an Args (a struct, or
// a map with string keys) and answers with an Out.
//
// The model sees the JSON schema inferred from Args by
// github.com/google/jsonschema-go: each exported field is a property named
// by its json tag, required unless the tag says omitempty or omitzero, with
// its `jsonschema:"..."` tag as its description; a `tool:"..."` tag adds
// enums and bounds (see ToolTag). Unknown fields are refused. The
// registry validates the call's arguments against that schema before fn
// runs, so fn never sees arguments the schema refuses: the model reads an
// error result naming the field instead.
//
// An Out of a string type is the content as it is; an Out of type Result
// is returned as it is (to set IsError or ConcludesTurn); any other is
// marshalled to JSON. fn's error is handled as Func's: wrap it with
// ErrorResult for the model to read it, return it bare to retry the call.
// fn reads the call (its idempotency key, agent, turn and step) with
// CallOf(ctx), reports progress with ReportProgress(ctx, ...), and stops
// when ctx is done: when the call is canceled or runs past its time limit.
//
// A schema that cannot be inferred from Args (a channel or func field, a
// cycle, a malformed tool tag) makes NewRegistry refuse the tool.
func New[Args, Out any](name, description string, fn func(ctx context.Context, args Args) (Out, error), opts ...ToolOption) Tool {
	t := Tool{Name: name, Description: description}
	if params, err := inferParameters[Args](); err != nil {
		t.invalid = fmt.Errorf("parameters of %s: %w", reflect.TypeFor[Args](), invalidSchema(err))
	} else {
		t.Parameters = params
	}
	if fn != nil { // NewRegistry refuses a nil Run
		t.Run = func(ctx context.Context, call Call) (Result, error) {
			var args Args
			if err := decodeArgs(call, &args); err != nil {
				return Result{}, err
			}
			res, err := fn(ctx, args)
			if err != nil {
				return Result{}, err
			}
			return encodeResult(call.Name, res)
		}
	}
	for _, opt := range opts { // last: an option may change anything
		if opt != nil {
			opt(&t)
		}
	}
	return t
}

// inferParameters is the JSON schema of Args: jsonschema.For with the tool
// tags applied.
func inferParameters[Args any]() (json.RawMessage, error) {
	s, err := jsonschema.For[Args](nil)
	if err != nil {
		return nil, err
	}
	if err := applyToolTags(reflect.TypeFor[Args](), s); err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// encodeResult is what the model reads of a typed tool's result.
func encodeResult(tool string, res any) (Result, error) {
	if r, ok := res.(Result); ok {
		return r, nil
	}
	if v := reflect.ValueOf(res); v.Kind() == reflect.String {
		return Result{Content: v.String()}, nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		// The same result would fail again: the model reads why.
		return Result{}, modelErrorf("tool %s: cannot encode its result: %v", tool, err)
	}
	return Result{Content: string(b)}, nil
}
