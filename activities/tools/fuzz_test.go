package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// fuzzRegistry has one tool with testSchema (strings with lengths, bounded
// numbers, an enum, arrays, a closed nested object) that echoes what it got.
func fuzzRegistry(t testing.TB) *Registry {
	r, err := NewRegistry(Tool{Name: "echo", Description: "echo", Parameters: json.RawMessage(testSchema),
		Run: func(_ context.Context, c Call) (Result, error) { return Result{Content: string(c.Arguments)}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// FuzzArguments checks arbitrary tool-call arguments against a schema:
// validation never panics and fails only with ErrInvalidArguments, and
// Execute answers every call: the tool runs on arguments that passed, and
// anything else is an error result for the model, never a Go error.
func FuzzArguments(f *testing.F) {
	r := fuzzRegistry(f)
	s := r.tools["echo"].schema
	f.Fuzz(func(t *testing.T, args []byte) {
		valid, verr := s.validateJSON(args)
		if verr != nil && !errors.Is(verr, ErrInvalidArguments) {
			t.Fatalf("untyped error: %v", verr)
		}
		res, err := r.Execute(context.Background(), Call{Name: "echo", Arguments: args})
		if err != nil {
			t.Fatalf("Execute returned an error for arguments %q: %v", args, err)
		}
		switch {
		case verr != nil && (!res.IsError || !strings.HasPrefix(res.Content, `invalid arguments for tool "echo": `)):
			t.Fatalf("invalid arguments ran or were answered %q", res.Content)
		case verr == nil && (res.IsError || !json.Valid(valid)):
			t.Fatalf("valid arguments %q answered %q", args, res.Content)
		case len(res.Content) > MaxResultBytes+64:
			t.Fatalf("result of %d bytes", len(res.Content))
		}
	})
}

// FuzzSchema registers a tool with arbitrary Parameters: the registry never
// panics, refuses a schema only with ErrInvalidSchema (or a reason about
// the tool itself), and a tool it accepts answers any call.
func FuzzSchema(f *testing.F) {
	f.Fuzz(func(t *testing.T, schema, args []byte) {
		r, err := NewRegistry(Tool{Name: "t", Description: "d", Parameters: schema,
			Run: func(context.Context, Call) (Result, error) { return Result{Content: "ran"}, nil }})
		if err != nil {
			if !errors.Is(err, ErrInvalidSchema) {
				t.Fatalf("untyped error for schema %q: %v", schema, err)
			}
			return
		}
		if _, err := r.Execute(context.Background(), Call{Name: "t", Arguments: args}); err != nil {
			t.Fatalf("Execute: %v", err)
		}
	})
}
