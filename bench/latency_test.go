package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// BenchmarkTurnLatency measures one turn of the workload (followup → model
// → tool → model → idle) end to end on one worker, waiting with the
// wait-idle update (push, no polling delay). It reports the median and p99
// over b.N turns of one agent.
func BenchmarkTurnLatency(b *testing.B) {
	ts, agents := server(b)
	c := ts.GetDefaultClient()
	ctx := context.Background()
	h, err := agents.Create(ctx, agent.CreateOptions{ID: "latency", Options: signals.AgentOptions{Tools: []string{"fetch"}}})
	if err != nil {
		b.Fatal(err)
	}
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := h.Followup(ctx, fmt.Sprintf("turn %d", i)); err != nil {
			b.Fatal(err)
		}
		if err := waitIdlePush(ctx, c, h.ID); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms/turn")
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds())/1000, "p99-ms/turn")
}

// waitIdlePush waits with the wait-idle update; a rejection means the
// agent was already idle.
func waitIdlePush(ctx context.Context, c client.Client, id string) error {
	u, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: id, UpdateName: signals.WaitIdleUpdate.Name, Args: []any{signals.WaitIdle{}},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return err
	}
	var st signals.StatusView
	if err := u.Get(ctx, &st); err != nil && !isIdleRejection(err) {
		return err
	}
	return nil
}

func isIdleRejection(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == signals.RejectIdle
}
