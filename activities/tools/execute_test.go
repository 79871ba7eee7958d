package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

var errBackend = errors.New("backend unavailable")

func executeRegistry(t *testing.T) *Registry {
	t.Helper()
	echo := Tool{
		Name:        "echo",
		Description: "echoes text",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer","minimum":0}},"required":["text"]}`),
		Run: func(_ context.Context, c Call) (Result, error) {
			var args struct{ Text string }
			if err := json.Unmarshal(c.Arguments, &args); err != nil {
				return Result{}, err
			}
			return Result{Content: args.Text, ConcludesTurn: args.Text == "done"}, nil
		},
	}
	fail := func(name string, err error) Tool {
		tool := testTool(name)
		tool.Run = func(context.Context, Call) (Result, error) { return Result{}, err }
		return tool
	}
	panics := testTool("panics")
	panics.Run = func(context.Context, Call) (Result, error) { panic("boom") }
	noArgs := testTool("no_args")
	noArgs.Run = func(_ context.Context, c Call) (Result, error) { return Result{Content: string(c.Arguments)}, nil }
	r, err := NewRegistry(echo, panics, noArgs,
		fail("flaky", errBackend),
		fail("missing", fmt.Errorf("open: %w", ErrorResult(errors.New("file not found")))),
	)
	require.NoError(t, err)
	return r
}

func TestExecuteTurnsModelFacingFailuresIntoErrorResults(t *testing.T) {
	r := executeRegistry(t)
	tests := []struct {
		name string
		call Call
		want Result
	}{
		{"success", Call{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}, Result{Content: "hi"}},
		{"concludes turn", Call{Name: "echo", Arguments: json.RawMessage(`{"text":"done"}`)}, Result{Content: "done", ConcludesTurn: true}},
		{"empty arguments become {}", Call{Name: "no_args"}, Result{Content: "{}"}},
		{"unknown tool", Call{Name: "x"}, Result{IsError: true, Content: `unknown tool "x"; available: echo, flaky, missing, no_args, panics`}},
		{"bad json", Call{Name: "echo", Arguments: json.RawMessage(`{"text":`)}, Result{IsError: true, Content: `invalid arguments for tool "echo": arguments are not valid JSON`}},
		{"missing field", Call{Name: "echo", Arguments: json.RawMessage(`{}`)}, Result{IsError: true, Content: `invalid arguments for tool "echo": missing required field "text"`}},
		{"wrong type", Call{Name: "echo", Arguments: json.RawMessage(`{"text":"a","n":-1}`)}, Result{IsError: true, Content: `invalid arguments for tool "echo": field "n": must be >= 0, got -1`}},
		{"model-visible error", Call{Name: "missing"}, Result{IsError: true, Content: "open: file not found"}},
		{"panic", Call{Name: "panics"}, Result{IsError: true, Content: "tool panics panicked: boom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Execute(context.Background(), tt.call)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestExecuteOnEmptyRegistrySaysNoToolsAreAvailable(t *testing.T) {
	r, err := NewRegistry()
	require.NoError(t, err)
	got, err := r.Execute(context.Background(), Call{Name: "x"})
	require.NoError(t, err)
	require.Equal(t, Result{IsError: true, Content: `unknown tool "x"; available: (none)`}, got)
}

func TestExecuteReturnsRetryableErrorsWrapped(t *testing.T) {
	r := executeRegistry(t)
	_, err := r.Execute(context.Background(), Call{Name: "flaky"})
	require.ErrorIs(t, err, errBackend)
	require.EqualError(t, err, "tool flaky: backend unavailable")
}

func TestExecuteDoesNotRunWhenContextIsDone(t *testing.T) {
	r := executeRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := r.Execute(ctx, Call{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
	require.ErrorIs(t, err, context.Canceled)
}

func TestExecuteTruncatesLargeResultsOnRuneBoundary(t *testing.T) {
	r, err := executeRegistry(t).With(WithMaxResultBytes(10))
	require.NoError(t, err)
	text := "abcdefghié" + strings.Repeat("x", 5) // é is bytes 10-11
	args, _ := json.Marshal(map[string]string{"text": text})

	got, err := r.Execute(context.Background(), Call{Name: "echo", Arguments: args})
	require.NoError(t, err)
	require.Equal(t, "abcdefghi\n[truncated: 9 of 16 bytes shown]", got.Content)

	got, err = r.Execute(context.Background(), Call{Name: "unknown_tool_with_long_name"})
	require.NoError(t, err)
	require.True(t, got.IsError)
	require.True(t, strings.HasPrefix(got.Content, "unknown to\n[truncated: 10 of "), got.Content)
}

func TestExecuteIsSafeForConcurrentUse(t *testing.T) {
	r := executeRegistry(t)
	got := make([]Result, 20)
	errs := make([]error, 20)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			args := json.RawMessage(fmt.Sprintf(`{"text":"%d"}`, i))
			got[i], errs[i] = r.Execute(context.Background(), Call{Name: "echo", Arguments: args})
		})
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i])
		require.Equal(t, fmt.Sprint(i), got[i].Content)
	}
}
