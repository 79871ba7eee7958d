package tools

import (
	"context"
	"math"
	"strconv"
)

const calculateParams = `{
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

// Calculator returns the "calculate" tool, which evaluates arithmetic in
// float64: + - * / % (remainder) ^ (power, right-associative), parentheses,
// unary minus and decimals.
func Calculator() Tool {
	return Tool{
		Name:        "calculate",
		Description: "Evaluate an arithmetic expression exactly as written. Supports + - * / % ^ (power), parentheses, unary minus and decimal numbers.",
		Parameters:  []byte(calculateParams),
		Mode:        Parallel,
		Local:       true,
		Idempotent:  true, // computes only
		Run: func(_ context.Context, call Call) (Result, error) {
			var args struct {
				Expression string `json:"expression"`
			}
			if err := decodeArgs(call, &args); err != nil {
				return Result{}, err
			}
			v, err := evaluate(args.Expression)
			if err != nil {
				return Result{}, ErrorResult(err)
			}
			return Result{Content: formatNumber(v)}, nil
		},
	}
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
