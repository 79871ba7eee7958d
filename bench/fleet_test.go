package bench

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// BenchmarkThousandAgents runs 1,000 agents on one worker (and the embedded
// server, in the same process on the same 2 cores): each agent takes turns
// of the workload (model → tool → model) concurrently with all the others.
// It reports the wall time of the whole fleet, throughput in turns a second
// and the heap in use once every agent is idle and cached by the worker.
func BenchmarkThousandAgents(b *testing.B) {
	const agents, turns = 1000, 3
	e := server(b)
	client, c := e.agents, e.c
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, agents)
		sem := make(chan struct{}, 200) // bounded client concurrency
		for a := range agents {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				errs <- runAgent(ctx, client, c, fmt.Sprintf("fleet-%d-%d", i, a), turns)
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		elapsed := time.Since(start)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(elapsed.Seconds(), "fleet-s")
		b.ReportMetric(float64(agents*turns)/elapsed.Seconds(), "turns/s")
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
	}
}

func runAgent(ctx context.Context, agents *agent.Client, c interface{ Close() }, id string, turns int) error {
	h, err := agents.Create(ctx, agent.CreateOptions{ID: id, Options: signals.AgentOptions{Tools: []string{"fetch"}}, First: "turn 1"})
	if err != nil {
		return err
	}
	for t := 1; t <= turns; t++ {
		if t > 1 {
			if _, err := h.Followup(ctx, fmt.Sprintf("turn %d", t)); err != nil {
				return err
			}
		}
		if _, err := h.WaitIdle(ctx); err != nil {
			return fmt.Errorf("%s turn %d: %w", id, t, err)
		}
	}
	return nil
}
