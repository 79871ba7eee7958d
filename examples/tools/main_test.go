package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/examples/internal/exampletest"
	"github.com/tetherdev/tether/signals"
)

// The example built and run as its README says: an agent on it calls both
// of its tools, whose results are in the agent's log, and a bad argument
// reaches the model as an error result without failing anything.
func TestExampleWorkerRunsItsOwnTools(t *testing.T) {
	srv := exampletest.NewServer(t)
	worker := exampletest.Start(t, exampletest.Build(t), srv.Args()...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h, err := srv.Agents.Create(ctx, agent.CreateOptions{
		Options: signals.AgentOptions{Tools: []string{"order_status", "shipping_quote"}},
		First: "/tool order_status {\"order_id\":\"A-1001\"}\n" +
			"/tool shipping_quote {\"weight_kg\":2.5,\"country\":\"DE\"}\n" +
			"/tool shipping_quote {\"weight_kg\":2.5,\"country\":\"Mars\"}",
	})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err, worker.Log())
	results := exampletest.Results(t, ctx, h)
	require.Len(t, results, 3)
	byCall := map[string]string{}
	for _, r := range results {
		byCall[r.Name+" "+map[bool]string{true: "error", false: "ok"}[r.IsError]] += r.Content
	}
	require.Equal(t, "A-1001: shipped on 2026-11-30, arriving 2026-12-03", byCall["order_status ok"])
	require.Equal(t, "9.40 EUR to DE for 2.5 kg", byCall["shipping_quote ok"])
	require.Contains(t, byCall["shipping_quote error"], "country", "the schema refuses a country outside the enum")
	require.Equal(t, 0, worker.Stop(t), "SIGTERM stops the worker cleanly")
}
