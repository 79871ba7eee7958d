package bench

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

var longTurns = flag.Int("long-turns", 10_000, "turns of BenchmarkLongLivedAgent")

// BenchmarkLongLivedAgent drives one agent through 10,000 turns with the
// scripted model (one model call a turn) on one worker. Runs continue as new
// when Temporal suggests it; it reports the chain's runs, the largest run's
// history (events and bytes), and the median turn time of the first and the
// last 1,000 turns and their ratio.
func BenchmarkLongLivedAgent(b *testing.B) {
	e := server(b)
	c, agents := e.c, e.agents
	ctx := context.Background()
	turns := *longTurns
	window := min(1000, turns/2)
	for i := 0; i < b.N; i++ {
		h, err := agents.Create(ctx, agent.CreateOptions{ID: fmt.Sprintf("long-%d", i), First: "turn 0",
			Options: signals.AgentOptions{Provider: scripted.Name}})
		if err != nil {
			b.Fatal(err)
		}
		times := make([]time.Duration, 0, turns)
		if _, err := h.WaitIdle(ctx); err != nil {
			b.Fatal(err)
		}
		for turn := 1; turn < turns; turn++ {
			start := time.Now()
			if _, err := h.Followup(ctx, fmt.Sprintf("turn %d", turn), agent.Unacknowledged()); err != nil {
				b.Fatal(err)
			}
			// Poll the status query: waiting writes nothing to history (an
			// update a turn would grow each run's mutable state).
			if _, err := h.WaitIdle(ctx); err != nil {
				b.Fatalf("turn %d: %v", turn, err)
			}
			times = append(times, time.Since(start))
		}
		steps, err := stepTimes(ctx, h)
		if err != nil {
			b.Fatal(err)
		}
		first, last := median(steps[:window]), median(steps[len(steps)-window:])
		runs, err := projection.FetchChain(ctx, c, h.ID)
		if err != nil {
			b.Fatal(err)
		}
		maxEvents, maxBytes := 0, 0
		sizes := make([]int, len(runs))
		for i, run := range runs {
			for _, ev := range run {
				sizes[i] += proto.Size(ev)
			}
			maxEvents, maxBytes = max(maxEvents, len(run)), max(maxBytes, sizes[i])
		}
		if len(runs) > 2 { // the last run is still open: compare complete runs
			b.ReportMetric(float64(sizes[0])/1024, "first-run-KiB")
			b.ReportMetric(float64(sizes[len(sizes)-2])/1024, "last-full-run-KiB")
		}
		b.ReportMetric(float64(len(runs)), "runs")
		b.ReportMetric(float64(maxEvents), "max-run-events")
		b.ReportMetric(float64(maxBytes)/1024, "max-run-KiB")
		b.ReportMetric(float64(first.Microseconds())/1000, "first-1k-step-p50-ms")
		b.ReportMetric(float64(last.Microseconds())/1000, "last-1k-step-p50-ms")
		b.ReportMetric(float64(last)/float64(first), "last/first")
		b.ReportMetric(float64(median(times).Microseconds())/1000, "client-turn-p50-ms")
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// stepTimes reads every step's duration from the chained session log:
// step/end minus step/start, in workflow time.
func stepTimes(ctx context.Context, h *agent.Handle) ([]time.Duration, error) {
	log, err := h.Log(ctx)
	if err != nil {
		return nil, err
	}
	var out []time.Duration
	var start time.Time
	for _, env := range log {
		switch env.Type {
		case eventlog.TypeStepStart:
			start = env.At
		case eventlog.TypeStepEnd:
			out = append(out, env.At.Sub(start))
		}
	}
	return out, nil
}
