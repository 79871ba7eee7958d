package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"
	"google.golang.org/protobuf/proto"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/fx/temporalfx"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// server starts an embedded server with one worker running the workload.
func server(b *testing.B) (*temporaltest.TestServer, *agent.Client) {
	ts := temporaltest.NewServer(temporaltest.WithT(&testing.T{}))
	b.Cleanup(ts.Stop)
	c := ts.GetDefaultClient()
	attrs := map[string]enumspb.IndexedValueType{}
	for n, k := range signals.SearchAttributeKinds {
		attrs[n] = temporalfx.IndexedType(k)
	}
	if _, err := c.OperatorService().AddSearchAttributes(context.Background(), &operatorservice.AddSearchAttributesRequest{
		Namespace: ts.GetDefaultNamespace(), SearchAttributes: attrs}); err != nil {
		b.Fatal(err)
	}
	reg, _ := tools.NewRegistry(workload.Tool(workload.Fetch, false), workload.Tool(workload.Read, true))
	//lint:ignore SA1019 the build ID as cmd/worker records it (fx/workerfx)
	opts := worker.Options{BuildID: workerfx.BuildID()}
	reader := activities.NewLogReader(activities.WorkflowLog{Client: c}, 0)
	ts.NewWorkerWithOptions(signals.TaskQueue, func(r worker.Registry) {
		workflows.Register(r, workerfx.WorkflowConfig(workflows.Config{}, nil, reg))
		activities.Register(r,
			&activities.Model{Providers: map[string]activities.Provider{workload.Provider: workload.Model{}, scripted.Name: scripted.Provider{}},
				DefaultProvider: workload.Provider, Tools: reg, Log: reader},
			&activities.Tool{Runner: reg, Log: reader})
	}, opts)
	return ts, agent.New(c, signals.TaskQueue)
}

// BenchmarkHistory50Turns measures the workflow history of an agent after 50
// turns of the workload: total bytes, events per turn, and the largest model
// activity input; with the tool as a regular activity and as a fast local one.
func BenchmarkHistory50Turns(b *testing.B) {
	for _, tool := range []string{"fetch", "read"} {
		b.Run(map[string]string{"fetch": "activity-tool", "read": "local-tool"}[tool], func(b *testing.B) { history50(b, tool) })
	}
}

func history50(b *testing.B, tool string) {
	const turns = 50
	ts, agents := server(b)
	c := ts.GetDefaultClient()
	ctx := context.Background()

	for i := 0; i < b.N; i++ {
		start := time.Now()
		h, err := agents.Create(ctx, agent.CreateOptions{
			ID: fmt.Sprintf("history-%d", i), Options: signals.AgentOptions{Tools: []string{tool}}, First: "turn 1",
		})
		if err != nil {
			b.Fatal(err)
		}
		for turn := 1; turn <= turns; turn++ {
			if turn > 1 {
				if _, err := h.Followup(ctx, fmt.Sprintf("turn %d", turn)); err != nil {
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
		size, maxInput := 0, 0
		for _, ev := range events {
			size += proto.Size(ev)
			if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == signals.ModelActivity {
				maxInput = max(maxInput, proto.Size(a.GetInput()))
			}
		}
		b.ReportMetric(float64(size)/1024, "history-KiB")
		b.ReportMetric(float64(len(events))/turns, "events/turn")
		b.ReportMetric(float64(size)/turns, "bytes/turn")
		b.ReportMetric(float64(maxInput), "max-model-input-B")
		b.ReportMetric(float64(elapsed.Milliseconds())/turns, "ms/turn-polled")
	}
}
