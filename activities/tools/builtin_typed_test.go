package tools

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The schemas calculate and current_time had when they were written by
// hand: made with New, the model sees the same.
const (
	handWrittenCalculateParams = `{
  "type": "object",
  "properties": {
    "expression": {
      "type": "string",
      "description": "Arithmetic expression, e.g. \"(1.5 + 2) * -3 ^ 2 % 7\". Operators: + - * / % ^ and parentheses.",
      "minLength": 1,
      "maxLength": 1000
    }
  },
  "required": ["expression"],
  "additionalProperties": false
}`
	handWrittenCurrentTimeParams = `{
  "type": "object",
  "properties": {
    "timezone": {
      "type": "string",
      "description": "IANA time zone name such as \"Europe/Berlin\" or \"America/New_York\". Defaults to UTC.",
      "maxLength": 64
    }
  },
  "additionalProperties": false
}`
)

func TestTypedBuiltinsShowTheModelTheirHandWrittenSchemasAndDescriptions(t *testing.T) {
	r, err := NewRegistry(Calculator(), CurrentTime(nil))
	require.NoError(t, err)
	specs, err := r.Specs([]string{"calculate", "current_time"})
	require.NoError(t, err)
	require.JSONEq(t, handWrittenCalculateParams, string(specs[0].Parameters))
	require.Equal(t, "Evaluate an arithmetic expression exactly as written. Supports + - * / % ^ (power), parentheses, unary minus and decimal numbers.", specs[0].Description)
	require.JSONEq(t, handWrittenCurrentTimeParams, string(specs[1].Parameters))
	require.Equal(t, "Get the current date and time (RFC 3339) and weekday, optionally in an IANA time zone (default UTC).", specs[1].Description)
	for _, name := range []string{"calculate", "current_time"} {
		tool, _ := r.Lookup(name)
		require.Equal(t, Parallel, tool.Mode, name)
		require.True(t, tool.Local && tool.Idempotent, name)
	}
}
