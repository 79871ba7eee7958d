package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// workloadModel is the bar's workload: each turn the model calls a tool
// (which returns 2 KB), then answers 400 characters.
type workloadModel struct{}

func (workloadModel) Complete(_ context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == eventlog.RoleUser {
		return eventlog.AssistantMessage{FinishReason: eventlog.FinishToolCalls, ToolCalls: []eventlog.ToolCallRequest{{
			ID: fmt.Sprintf("call_%d", len(req.Messages)), Name: req.Tools[0].Name, Arguments: []byte(`{}`),
		}}}, nil
	}
	text := fmt.Sprintf("answer after %d messages: ", len(req.Messages))
	return eventlog.AssistantMessage{Text: text + strings.Repeat("a", 400-len(text)), FinishReason: eventlog.FinishStop}, nil
}

// contextTool returns 100 KB: an agent that called it holds a 100 KB
// context.
func contextTool() tools.Tool {
	return tools.Tool{Name: "context", Description: "Fetch 100 KB.", Run: func(_ context.Context, c tools.Call) (tools.Result, error) {
		return tools.Result{Content: strings.Repeat(c.CallID+" ", 100<<10/(len(c.CallID)+1)+1)[:100<<10]}, nil
	}}
}

// fetchTool returns 2 KB. "fetch" runs as a regular activity (a tool that
// does I/O); "read" is the same as a fast local tool, like the built-in
// read_file.
func fetchTool(name string, local bool) tools.Tool {
	return tools.Tool{Name: name, Description: "Fetch 2 KB.", Local: local, Run: func(_ context.Context, c tools.Call) (tools.Result, error) {
		return tools.Result{Content: strings.Repeat(c.CallID+" ", 2048/(len(c.CallID)+1)+1)[:2048]}, nil
	}}
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
	e := server(b)
	c, agents := e.c, e.agents
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
