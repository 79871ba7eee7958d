package main

import (
	"context"
	"fmt"

	"github.com/tetherdev/tether/activities/tools"
)

var facts = map[string]string{
	"mars":  "Mars has two moons, Phobos and Deimos.",
	"venus": "A day on Venus is longer than its year.",
}

// FactArgs are lookup_fact's arguments.
type FactArgs struct {
	Topic string `json:"topic" jsonschema:"the planet" tool:"enum=mars|venus"`
}

// LookupFact is the researcher's tool: a read-only lookup.
func LookupFact() tools.Tool {
	return tools.New("lookup_fact", "Look up a fact about a planet (mars, venus).",
		func(_ context.Context, args FactArgs) (string, error) {
			fact, ok := facts[args.Topic]
			if !ok {
				return "", tools.ErrorResult(fmt.Errorf("no fact about %q", args.Topic))
			}
			return fact, nil
		}, tools.AsLocal(), tools.AsIdempotent())
}
