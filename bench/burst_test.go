package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"google.golang.org/protobuf/proto"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// BenchmarkParallelBurst: S senders at once, each injecting 16 messages of
// 250 KiB (each inside signals.MaxMessageBytes) into one idle agent as
// acknowledged updates, with a 60 s deadline a send. Before admission by
// bytes, 16 senders took the agent past Temporal's 50 MB history limit in
// 6 s and the server terminated it. Reported: what was delivered (each
// once), what was refused busy when its deadline ended, the runs the agent
// continued through and the largest run's history, and whether the agent
// is still open.
func BenchmarkParallelBurst(b *testing.B) {
	for _, senders := range []int{16, 32, 64} {
		b.Run(fmt.Sprintf("senders-%d", senders), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				burst(b, senders, 16)
			}
		})
	}
}

func burst(b *testing.B, senders, each int) {
	e := server(b)
	ctx := context.Background()
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "burst", First: "ready?",
		Options: signals.AgentOptions{Tools: []string{workload.Fetch}}})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := h.WaitIdle(ctx); err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("x", 250<<10)
	var (
		mu                       sync.Mutex
		delivered, busy, unknown int
		ids                      = map[eventlog.MessageID]bool{}
		maybe                    = map[eventlog.MessageID]bool{}
		wg                       sync.WaitGroup
		start                    = time.Now()
		unexpected               error
	)
	for s := range senders {
		wg.Go(func() {
			for m := range each {
				id := eventlog.MessageID(fmt.Sprintf("s%d-m%d", s, m))
				sctx, cancel := context.WithTimeout(ctx, time.Minute)
				_, err := h.Inject(sctx, body, agent.WithMessageID(id), agent.Acknowledged())
				cancel()
				mu.Lock()
				switch {
				case err == nil:
					delivered++
					ids[id] = true
				case errors.Is(err, signals.ErrDuplicateID):
					// Delivered by a try of this send whose answer was lost
					// (the SDK retries within one call, and the run that took
					// it continued as new): "already delivered".
					delivered++
					ids[id] = true
				case errors.Is(err, signals.ErrBusy):
					busy++
				case errors.Is(err, agent.ErrDeliveryUnknown): // it may be in: once at most
					unknown++
					maybe[id] = true
				default:
					unexpected = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if unexpected != nil {
		b.Fatal(unexpected)
	}
	desc, err := e.c.DescribeWorkflowExecution(ctx, h.ID, "")
	if err != nil {
		b.Fatal(err)
	}
	if st := desc.GetWorkflowExecutionInfo().GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		b.Fatalf("the agent is %s after the burst", st)
	}
	log, err := h.Log(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, env := range log {
		if env.Type != eventlog.TypeInboxInserted {
			continue
		}
		ev, err := eventlog.Decode(env)
		if err != nil {
			b.Fatal(err)
		}
		in := ev.(eventlog.InboxInserted)
		switch id := in.MessageID; {
		case ids[id]:
			delete(ids, id)
		case maybe[id]:
			delete(maybe, id)
		case strings.HasPrefix(string(id), "s"):
			b.Fatalf("message %s is in the inbox twice, or was refused and is there anyway", id)
		}
	}
	if len(ids) > 0 {
		b.Fatalf("%d acknowledged messages are not in the log", len(ids))
	}
	runs, err := projection.FetchChain(ctx, e.c, h.ID)
	if err != nil {
		b.Fatal(err)
	}
	largest := 0
	for _, run := range runs {
		size := 0
		for _, ev := range run {
			size += proto.Size(ev)
		}
		largest = max(largest, size)
	}
	b.ReportMetric(float64(delivered), "delivered")
	b.ReportMetric(float64(busy), "busy")
	b.ReportMetric(float64(unknown), "unknown")
	b.ReportMetric(float64(len(runs)), "runs")
	b.ReportMetric(float64(largest)/(1<<20), "MiB/largest-run")
	b.ReportMetric(elapsed.Seconds(), "s/burst")
	b.Logf("%d senders x %d messages of 250 KiB: %d delivered, %d busy, %d unknown, %d runs, largest run %.1f MiB, %s",
		senders, each, delivered, busy, unknown, len(runs), float64(largest)/(1<<20), elapsed.Round(time.Millisecond))
}
