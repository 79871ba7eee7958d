package tools

import (
	"context"
	"math"
	"strconv"
)

// calculateArgs are the "calculate" tool's arguments.
type calculateArgs struct {
	Expression string `json:"expression" tool:"minLength=1,maxLength=1000" jsonschema:"Arithmetic expression, e.g. \"(1.5 + 2) * -3 ^ 2 % 7\". Operators: + - * / % ^ and parentheses."`
}

// Calculator returns the "calculate" tool, which evaluates arithmetic in
// float64: + - * / % (remainder) ^ (power, right-associative), parentheses,
// unary minus and decimals.
func Calculator() Tool {
	return New("calculate",
		"Evaluate an arithmetic expression exactly as written. Supports + - * / % ^ (power), parentheses, unary minus and decimal numbers.",
		calculate, AsLocal(), AsIdempotent()) // computes only
}

func calculate(_ context.Context, args calculateArgs) (string, error) {
	v, err := evaluate(args.Expression)
	if err != nil {
		return "", ErrorResult(err)
	}
	return formatNumber(v), nil
}

// formatNumber prints plain decimals where they are readable and exponent
// notation only for very large or very small magnitudes.
func formatNumber(v float64) string {
	if v == 0 {
		return "0" // also folds -0
	}
	if a := math.Abs(v); a >= 1e21 || a < 1e-6 {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
