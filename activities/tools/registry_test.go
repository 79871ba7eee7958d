package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
)

func okRun(context.Context, Call) (Result, error) { return Result{Content: "ok"}, nil }

func testTool(name string) Tool {
	return Tool{Name: name, Description: "test tool " + name, Run: okRun}
}

func TestNewRegistryRejectsInvalidTools(t *testing.T) {
	with := func(edit func(*Tool)) Tool {
		tool := testTool("t")
		edit(&tool)
		return tool
	}
	tests := []struct {
		name  string
		tools []Tool
		err   string
	}{
		{"empty name", []Tool{with(func(t *Tool) { t.Name = "" })}, `tool 0 (""): name must be 1-64 characters, got 0`},
		{"long name", []Tool{with(func(t *Tool) { t.Name = strings.Repeat("a", 65) })}, "name must be 1-64 characters, got 65"},
		{"bad character", []Tool{with(func(t *Tool) { t.Name = "read.file" })}, `name has invalid character '.'`},
		{"duplicate", []Tool{testTool("a"), testTool("a")}, `tool 1: duplicate name "a"`},
		{"no description", []Tool{with(func(t *Tool) { t.Description = " " })}, "empty description"},
		{"nil run", []Tool{with(func(t *Tool) { t.Run = nil })}, "nil Run"},
		{"bad mode", []Tool{with(func(t *Tool) { t.Mode = "sometimes" })}, `invalid mode "sometimes"`},
		{"invalid json", []Tool{with(func(t *Tool) { t.Parameters = json.RawMessage(`{`) })}, "parameters: schema:"},
		{"not object type", []Tool{with(func(t *Tool) { t.Parameters = json.RawMessage(`{"type":"string"}`) })}, `schema must have "type":"object"`},
		{"missing type", []Tool{with(func(t *Tool) { t.Parameters = json.RawMessage(`{"properties":{}}`) })}, `schema must have "type":"object"`},
		{"unsupported type", []Tool{with(func(t *Tool) {
			t.Parameters = json.RawMessage(`{"type":"object","properties":{"a":{"type":"uuid"}}}`)
		})}, `schema at "a": unsupported type "uuid"`},
		{"local but not idempotent", []Tool{with(func(t *Tool) { t.Local = true })}, "a local tool must be idempotent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRegistry(tt.tools...)
			require.ErrorContains(t, err, tt.err)
		})
	}
}

func TestLocalToolsMustDeclareThemselvesIdempotent(t *testing.T) {
	local := testTool("fast")
	local.Local = true
	_, err := NewRegistry(local)
	require.ErrorIs(t, err, ErrNotIdempotent)

	local.Idempotent = true
	r, err := NewRegistry(local)
	require.NoError(t, err)
	require.True(t, r.Local("fast"))

	builtins, err := Workspace(WorkspaceOptions{Root: t.TempDir()})
	require.NoError(t, err)
	for _, b := range append(builtins, CurrentTime(nil), Calculator()) {
		require.True(t, b.Local && b.Idempotent, "built-in %s is a local tool that only reads or computes", b.Name)
	}
	// A regular activity may have side effects: it declares nothing.
	_, err = NewRegistry(testTool("slow"))
	require.NoError(t, err)
}

func TestRegistryFillsDefaultsAndDescribesTools(t *testing.T) {
	seq := testTool("seq")
	seq.Mode = Sequential
	seq.Parameters = json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
	r, err := NewRegistry(testTool("b"), seq, testTool("a"))
	require.NoError(t, err)

	require.Equal(t, []string{"a", "b", "seq"}, r.Names())
	require.Equal(t, Parallel, r.Mode("a"))
	require.Equal(t, Sequential, r.Mode("seq"))
	require.Equal(t, Parallel, r.Mode("unknown"))

	a, ok := r.Lookup("a")
	require.True(t, ok)
	require.Equal(t, Parallel, a.Mode)
	require.JSONEq(t, `{"type":"object","properties":{}}`, string(a.Parameters))
	_, ok = r.Lookup("nope")
	require.False(t, ok)

	specs, err := r.Specs([]string{"seq", "a"})
	require.NoError(t, err)
	require.Equal(t, []llm.ToolSpec{
		{Name: "seq", Description: "test tool seq", Parameters: seq.Parameters},
		{Name: "a", Description: "test tool a", Parameters: a.Parameters},
	}, specs)
}

func TestRegistrySpecsRejectsUnknownAndDuplicateNames(t *testing.T) {
	r, err := NewRegistry(testTool("a"))
	require.NoError(t, err)
	_, err = r.Specs([]string{"a", "ghost"})
	require.EqualError(t, err, `unknown tool "ghost"`)
	_, err = r.Specs([]string{"a", "a"})
	require.EqualError(t, err, `tool "a" listed twice`)
	specs, err := r.Specs(nil)
	require.NoError(t, err)
	require.Empty(t, specs)
}

func TestRegistryHandsOutCopiesOfParameters(t *testing.T) {
	r, err := NewRegistry(testTool("a"))
	require.NoError(t, err)
	tool, _ := r.Lookup("a")
	tool.Parameters[0] = 'X'
	specs, err := r.Specs([]string{"a"})
	require.NoError(t, err)
	specs[0].Parameters[0] = 'Y'
	again, _ := r.Lookup("a")
	require.JSONEq(t, `{"type":"object","properties":{}}`, string(again.Parameters))
}

func TestRegistryWithMaxResultBytes(t *testing.T) {
	r, err := NewRegistry(testTool("a"))
	require.NoError(t, err)
	_, err = r.With(WithMaxResultBytes(0))
	require.EqualError(t, err, "max result bytes must be positive, got 0")
	small, err := r.With(WithMaxResultBytes(1))
	require.NoError(t, err)
	require.Equal(t, 1, small.maxResultBytes)
	require.Equal(t, MaxResultBytes, r.maxResultBytes, "the original registry is unchanged")
}
