package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCalculatorEvaluatesExpressions(t *testing.T) {
	tests := []struct {
		expr string
		want string
	}{
		{"1 + 2", "3"},
		{"2 + 3 * 4", "14"},
		{"(2 + 3) * 4", "20"},
		{"10 - 4 - 3", "3"},
		{"100 / 10 / 5", "2"},
		{"7 % 3", "1"},
		{"-7 % 3", "-1"},
		{"2 ^ 10", "1024"},
		{"2 ^ 3 ^ 2", "512"},
		{"-2 ^ 2", "-4"},
		{"(-2) ^ 2", "4"},
		{"2 ^ -1", "0.5"},
		{"--3", "3"},
		{"+4", "4"},
		{"1.5 * 4", "6"},
		{".5 + .25", "0.75"},
		{"0.1 + 0.2", "0.30000000000000004"},
		{"1e3 + 1", "1001"},
		{"2.5e-3", "0.0025"},
		{"1000000 * 1000000", "1000000000000"},
		{"10 ^ 21", "1e+21"},
		{"1 / 3", "0.3333333333333333"},
		{"0 * -1", "0"},
		{" ( ( 1 ) ) ", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := evaluate(tt.expr)
			require.NoError(t, err)
			require.Equal(t, tt.want, formatNumber(got))
		})
	}
}

func TestCalculatorReportsErrorsToTheModel(t *testing.T) {
	r, err := NewRegistry(Calculator())
	require.NoError(t, err)
	tests := []struct {
		expr string
		want string
	}{
		{"1 / 0", `cannot evaluate "1 / 0": division by zero at position 3`},
		{"5 % (2 - 2)", `cannot evaluate "5 % (2 - 2)": division by zero at position 3`},
		{"1 +", `cannot evaluate "1 +": unexpected end of expression at position 4`},
		{"(1 + 2", `cannot evaluate "(1 + 2": expected ')' at position 7`},
		{"1 + 2)", `cannot evaluate "1 + 2)": unexpected ')' at position 6`},
		{"2 x 3", `cannot evaluate "2 x 3": unexpected 'x' at position 3`},
		{"2(3)", `cannot evaluate "2(3)": unexpected '(' at position 2`},
		{"1.2.3", `cannot evaluate "1.2.3": unexpected '.' at position 4`},
		{"1e", `cannot evaluate "1e": invalid number "1e" at position 1`},
		{"3 × 4", `cannot evaluate "3 × 4": unexpected '×' at position 3`},
		{"10 ^ 400", "result is not a finite number"},
		{"(-1) ^ 0.5", "result is not a finite number"},
		{strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200), "expression nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"expression": tt.expr})
			got, err := r.Execute(context.Background(), Call{Name: "calculate", Arguments: args})
			require.NoError(t, err)
			require.True(t, got.IsError)
			require.Contains(t, got.Content, tt.want)
		})
	}
}

func TestCalculatorToolReturnsFormattedResult(t *testing.T) {
	r, err := NewRegistry(Calculator())
	require.NoError(t, err)
	got, err := r.Execute(context.Background(), Call{Name: "calculate", Arguments: json.RawMessage(`{"expression":"(1.5 + 2) * 2"}`)})
	require.NoError(t, err)
	require.Equal(t, Result{Content: "7"}, got)

	got, err = r.Execute(context.Background(), Call{Name: "calculate", Arguments: json.RawMessage(`{"expression":""}`)})
	require.NoError(t, err)
	require.Equal(t, `invalid arguments for tool "calculate": field "expression": must be at least 1 characters long, got 0`, got.Content)
}
