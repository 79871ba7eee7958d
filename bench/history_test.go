package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// BenchmarkHistory50Turns measures the workflow history of an agent after 50
// turns of the workload: total bytes as served (the events' protobuf
// sizes) and as stored (the server's HistorySizeBytes, which its history
// size limit counts: each event framed in its batch, search attribute
// values without the type the server adds as it serves them), events per
// turn, and the largest model activity input; with the tool as a regular activity and as a fast local
// one, and with the activity tool on a worker that writes no search
// attributes (--no-search-attributes). Each followup is a signal, as the
// bar's workload says, except in activity-tool-acknowledged, where it is
// the Go client's default, an acknowledged update. With
// TETHER_BENCH_ADDRESS set it runs against that server (address_test.go).
func BenchmarkHistory50Turns(b *testing.B) {
	for _, c := range []struct {
		name, tool string
		cfg        workflows.Config
		send       agent.SendOption
	}{
		{"activity-tool", workload.Fetch, workflows.Config{}, agent.Unacknowledged()},
		{"local-tool", workload.Read, workflows.Config{}, agent.Unacknowledged()},
		{"activity-tool-no-search-attributes", workload.Fetch, workflows.Config{NoSearchAttributes: true}, agent.Unacknowledged()},
		{"activity-tool-acknowledged", workload.Fetch, workflows.Config{}, agent.Acknowledged()},
	} {
		b.Run(c.name, func(b *testing.B) { history50(b, c.tool, c.cfg, c.send) })
	}
}

func history50(b *testing.B, tool string, cfg workflows.Config, send agent.SendOption) {
	const turns = 50
	e := historyTarget(b, cfg)
	c, agents := e.c, e.agents
	ctx := context.Background()

	for i := 0; i < b.N; i++ {
		start := time.Now()
		h, err := agents.Create(ctx, agent.CreateOptions{
			ID: fmt.Sprintf("%shistory-%d", e.prefix, i), Options: signals.AgentOptions{Tools: []string{tool}}, First: "turn 1",
		})
		if err != nil {
			b.Fatal(err)
		}
		for turn := 1; turn <= turns; turn++ {
			if turn > 1 {
				if _, err := h.Followup(ctx, fmt.Sprintf("turn %d", turn), send); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := h.WaitIdle(ctx); err != nil {
				b.Fatal(err)
			}
		}
		elapsed := time.Since(start)
		events, err := projection.Fetch(ctx, c, h.ID, "")
		if err != nil {
			b.Fatal(err)
		}
		if err := dumpHistory(h.ID, events); err != nil {
			b.Fatal(err)
		}
		size, maxInput := 0, 0
		for _, ev := range events {
			size += proto.Size(ev)
			if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == signals.ModelActivity {
				maxInput = max(maxInput, proto.Size(a.GetInput()))
			}
		}
		desc, err := c.DescribeWorkflowExecution(ctx, h.ID, "")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(desc.GetWorkflowExecutionInfo().GetHistorySizeBytes())/turns, "stored-bytes/turn")
		b.ReportMetric(float64(size)/1024, "history-KiB")
		b.ReportMetric(float64(len(events))/turns, "events/turn")
		b.ReportMetric(float64(size)/turns, "bytes/turn")
		b.ReportMetric(float64(maxInput), "max-model-input-B")
		b.ReportMetric(float64(elapsed.Milliseconds())/turns, "ms/turn-polled")
	}
}
