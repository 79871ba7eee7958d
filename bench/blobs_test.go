package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"

	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/blobstore"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// BenchmarkBlobTurn40x1MB runs one turn of 40 parallel tool calls, each
// returning 1 MB kept whole (the registry's cap raised to 2 MiB), with the
// worker's and client's payloads of 256 KiB or more in a blob directory;
// then a followup the agent answers. It reports the run's history size as
// the server counts it, the bytes in the blob directory, and the turn's
// time.
func BenchmarkBlobTurn40x1MB(b *testing.B) {
	const calls, size = 40, 1 << 20
	e := serverOnly(b)
	d, err := blobstore.NewDir(filepath.Join(b.TempDir(), "blobs"))
	if err != nil {
		b.Fatal(err)
	}
	c, err := client.Dial(client.Options{HostPort: e.srv.HostPort(), Namespace: e.srv.Namespace(),
		Logger: tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)), ExternalStorage: blobstore.Storage(d, 0)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	reg, err := tools.NewRegistry(megabyteTool(size))
	if err == nil {
		reg, err = reg.With(tools.WithMaxResultBytes(2 << 20))
	}
	if err != nil {
		b.Fatal(err)
	}
	w, err := newWorker(c, signals.TaskQueue, scripted.Provider{}, reg, workflows.Config{})
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Stop)
	first := "read them all\n" + strings.Repeat("/tool megabyte {}\n", calls)
	agents := agent.New(c, signals.TaskQueue)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		h, err := agents.Create(ctx, agent.CreateOptions{ID: fmt.Sprintf("blobs-%d", i),
			Options: signals.AgentOptions{Tools: []string{"megabyte"}}, First: first})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.WaitIdle(ctx); err != nil {
			b.Fatal(err)
		}
		turn := time.Since(start)
		requireWholeResults(b, ctx, h, calls, size)
		if _, err := h.Followup(ctx, "and now?\n/say answered after the megabytes"); err != nil {
			b.Fatal(err)
		}
		if _, err := h.WaitIdle(ctx); err != nil {
			b.Fatal(err)
		}
		requireAnswer(b, ctx, h, "answered after the megabytes")
		desc, err := c.DescribeWorkflowExecution(ctx, h.ID, "")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(desc.GetWorkflowExecutionInfo().GetHistorySizeBytes()), "history-bytes")
		b.ReportMetric(turn.Seconds()*1000, "turn-ms")
	}
	b.ReportMetric(float64(dirBytes(b, d.Path())), "blob-bytes")
}

// megabyteTool returns size bytes unique to its call, so no two results
// share a blob.
func megabyteTool(size int) tools.Tool {
	return tools.Tool{Name: "megabyte", Description: "Return 1 MB.", Run: func(_ context.Context, c tools.Call) (tools.Result, error) {
		return tools.Result{Content: strings.Repeat(c.CallID+" ", size/(len(c.CallID)+1)+1)[:size]}, nil
	}}
}

func requireWholeResults(b *testing.B, ctx context.Context, h *agent.Handle, calls, size int) {
	log, err := h.Log(ctx)
	if err != nil {
		b.Fatal(err)
	}
	evs, err := eventlog.DecodeAll(log)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, ev := range evs {
		if r, ok := ev.(eventlog.ToolResult); ok {
			if len(r.Content) != size {
				b.Fatalf("result %s is %d bytes, want %d", r.CallID, len(r.Content), size)
			}
			n++
		}
	}
	if n != calls {
		b.Fatalf("%d tool results, want %d", n, calls)
	}
}

func requireAnswer(b *testing.B, ctx context.Context, h *agent.Handle, want string) {
	log, err := h.Log(ctx)
	if err != nil {
		b.Fatal(err)
	}
	evs, err := eventlog.DecodeAll(log)
	if err != nil {
		b.Fatal(err)
	}
	for _, ev := range evs {
		if m, ok := ev.(eventlog.AssistantMessage); ok && strings.Contains(m.Text, want) {
			return
		}
	}
	b.Fatalf("no answer %q after the turn", want)
}

func dirBytes(b *testing.B, dir string) int64 {
	files, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, f := range files {
		if info, err := f.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}
