package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"
	"google.golang.org/protobuf/proto"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// BenchmarkFanOut100Children: one parent spawns 100 children in one step
// (the scripted model) and collects every answer. Twice: children that
// answer at once, and children that first take five tool steps of 2 KB
// each. The parent's history must not grow with its children's
// conversations: it holds only the tasks it sent and the answers it got,
// so what it holds per child beyond the answer's text is the same in both.
func BenchmarkFanOut100Children(b *testing.B) {
	for _, kind := range []struct{ name, task string }{
		{"short-children", "/say done"},
		{"long-children", `/repeat 5 blob {}`},
	} {
		b.Run(kind.name, func(b *testing.B) { fanOut(b, kind.task) })
	}
}

func fanOut(b *testing.B, task string) {
	const children = 100
	ts, agents := fanOutServer(b)
	c := ts.GetDefaultClient()
	ctx := context.Background()
	lines := make([]string, children)
	for i := range lines {
		lines[i] = fmt.Sprintf(`/tool spawn_agent {"task":%q}`, task)
	}
	for i := 0; i < b.N; i++ {
		start := time.Now()
		h, err := agents.Create(ctx, agent.CreateOptions{ID: fmt.Sprintf("fan-%d", i), First: strings.Join(lines, "\n"),
			Options: signals.AgentOptions{Tools: []string{signals.SpawnTool, "blob"}, MaxParallelTools: children}})
		if err != nil {
			b.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		_, err = h.WaitIdle(wctx)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		log, err := h.Log(ctx)
		if err != nil {
			b.Fatal(err)
		}
		evs, _ := eventlog.DecodeAll(log)
		answered, answers := 0, 0
		for _, e := range evs {
			if r, ok := e.(eventlog.ToolResult); ok && !r.IsError {
				answered++
				answers += len(r.Content)
			}
		}
		if answered != children {
			b.Fatalf("%d of %d children answered", answered, children)
		}
		history, err := projection.Fetch(ctx, c, h.ID, "")
		if err != nil {
			b.Fatal(err)
		}
		size := 0
		for _, ev := range history {
			size += proto.Size(ev)
		}
		childSize := 0
		if child, err := projection.Fetch(ctx, c, signals.ChildAgentID(h.ID, 9), ""); err == nil {
			for _, ev := range child {
				childSize += proto.Size(ev)
			}
		}
		b.ReportMetric(elapsed.Seconds(), "wall-s")
		b.ReportMetric(float64(size)/1024, "parent-history-KiB")
		b.ReportMetric(float64(len(history)), "parent-events")
		b.ReportMetric(float64(size)/children, "parent-bytes/child")
		b.ReportMetric(float64(answers)/children, "answer-bytes/child")
		b.ReportMetric(float64(size-answers)/children, "parent-overhead-bytes/child")
		b.ReportMetric(float64(childSize)/1024, "one-child-history-KiB")
	}
}

// fanOutServer is an embedded server with one worker: the scripted model,
// the loop's tools and a tool that returns 2 KB.
func fanOutServer(b *testing.B) (*temporaltest.TestServer, *agent.Client) {
	ts, agents := bareServer(b)
	c := ts.GetDefaultClient()
	blob := tools.Tool{Name: "blob", Description: "Return 2 KB.", Run: func(context.Context, tools.Call) (tools.Result, error) {
		return tools.Result{Content: strings.Repeat("x", 2048)}, nil
	}}
	reg, _ := tools.NewRegistry(append(tools.LoopTools(), blob)...)
	reader := activities.NewLogReader(activities.WorkflowLog{Client: c}, 0)
	//lint:ignore SA1019 the build ID as cmd/worker records it (fx/workerfx)
	opts := worker.Options{BuildID: workerfx.BuildID(), MaxConcurrentActivityExecutionSize: 200}
	ts.NewWorkerWithOptions(signals.TaskQueue, func(r worker.Registry) {
		workflows.Register(r, workerfx.WorkflowConfig(workflows.Config{}, nil, reg))
		activities.Register(r,
			&activities.Model{Providers: map[string]activities.Provider{scripted.Name: scripted.Provider{}},
				DefaultProvider: scripted.Name, Tools: reg, Log: reader},
			&activities.Tool{Runner: reg, Log: reader})
	}, opts)
	return ts, agents
}
