package bench

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

var forkTurns = flag.Int("fork-turns", 1000, "turns of the source agent of BenchmarkFork")

// BenchmarkFork forks an agent of 1,000 turns (the scripted model, one
// model call a turn) at its last turn boundary, with one more prompt
// appended. Each iteration is one fork: it reports the time Fork takes
// (reading the source's chain from history, folding it, starting the
// fork), the time until the fork has answered its first turn, and the
// fork's run history: its bytes and the start event's share (the seed
// holds the folded conversation; nothing else of the source is copied).
func BenchmarkFork(b *testing.B) {
	e := server(b)
	ctx := context.Background()
	src := longAgent(b, ctx, e.agents, "fork-src", *forkTurns)
	log, err := src.Log(ctx)
	if err != nil {
		b.Fatal(err)
	}
	at := log[len(log)-1].Seq // idle after the last turn
	b.ResetTimer()
	var forkTime, firstTurn time.Duration
	var histBytes, startBytes int
	for i := 0; i < b.N; i++ {
		start := time.Now()
		f, err := src.Fork(ctx, at, agent.AppendMessage("one more"), agent.WithForkID(fmt.Sprintf("fork-%d", i)))
		if err != nil {
			b.Fatal(err)
		}
		forkTime += time.Since(start)
		if _, err := f.WaitIdle(ctx); err != nil {
			b.Fatal(err)
		}
		firstTurn += time.Since(start)
		history, err := projection.Fetch(ctx, e.c, f.ID, "")
		if err != nil {
			b.Fatal(err)
		}
		for _, ev := range history {
			histBytes += proto.Size(ev)
		}
		startBytes += proto.Size(history[0])
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(forkTime.Microseconds())/1000/n, "fork-ms")
	b.ReportMetric(float64(firstTurn.Microseconds())/1000/n, "fork-to-first-answer-ms")
	b.ReportMetric(float64(histBytes)/1024/n, "fork-run-history-KiB")
	b.ReportMetric(float64(startBytes)/1024/n, "fork-start-event-KiB")
	b.ReportMetric(float64(at+1), "source-log-events")
}

// longAgent drives a new agent through turns turns of the scripted model.
func longAgent(b *testing.B, ctx context.Context, agents *agent.Client, id string, turns int) *agent.Handle {
	h, err := agents.Create(ctx, agent.CreateOptions{ID: id, First: "turn 0",
		Options: signals.AgentOptions{Provider: scripted.Name, Hooks: []string{}}})
	if err != nil {
		b.Fatal(err)
	}
	for turn := 1; ; turn++ {
		st, err := h.WaitIdle(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if st.Status != eventlog.StatusIdle || turn == turns {
			return h
		}
		if _, err := h.Followup(ctx, fmt.Sprintf("turn %d", turn), agent.Unacknowledged()); err != nil {
			b.Fatal(err)
		}
	}
}
