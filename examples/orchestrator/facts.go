package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tetherdev/tether/activities/tools"
)

var facts = map[string]string{
	"mars":  "Mars has two moons, Phobos and Deimos.",
	"venus": "A day on Venus is longer than its year.",
}

// LookupFact is the researcher's tool: a read-only lookup.
func LookupFact() tools.Tool {
	return tools.Tool{
		Name:        "lookup_fact",
		Description: "Look up a fact about a planet (mars, venus).",
		Parameters: json.RawMessage(`{"type":"object","properties":{"topic":{"type":"string","enum":["mars","venus"]}},
			"required":["topic"],"additionalProperties":false}`),
		Local: true, Idempotent: true,
		Run: func(_ context.Context, call tools.Call) (tools.Result, error) {
			var args struct {
				Topic string `json:"topic"`
			}
			if err := json.Unmarshal(call.Arguments, &args); err != nil {
				return tools.Result{}, tools.ErrorResult(err)
			}
			fact, ok := facts[args.Topic]
			if !ok {
				return tools.Result{}, tools.ErrorResult(fmt.Errorf("no fact about %q", args.Topic))
			}
			return tools.Result{Content: fact}, nil
		},
	}
}
