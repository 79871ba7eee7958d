package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// BenchmarkThousandAgents runs 1,000 agents on one worker (and the embedded
// server, in the same process on the same 2 cores): each agent takes turns
// of the workload (model → tool → model) concurrently with all the others.
// It reports the wall time of the whole fleet, throughput in turns a second,
// the client-observed turn and the heap in use once every agent is idle and
// cached by the worker.
func BenchmarkThousandAgents(b *testing.B) {
	const agents, turns, inFlight = 1000, 3, 200
	e := server(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		times, _, err := runFleet(ctx, e.agents, fmt.Sprintf("fleet-%d", i), agents, turns, inFlight,
			signals.AgentOptions{Tools: []string{"fetch"}})
		if err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(elapsed.Seconds(), "fleet-s")
		b.ReportMetric(float64(agents*turns)/elapsed.Seconds(), "turns/s")
		times.report(b)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
	}
}

// BenchmarkFleetWorkerProcess is the fleet with its worker in a process of
// its own, as in production: 1,000 agents running 3 turns each, 250 in
// flight, then every agent's session log read (Handle.Log), 250 at a time,
// each read given 10 s. It reports throughput, the client-observed turn,
// failed and slowest log reads, the worker's peak memory and the server's
// (the embedded server shares the benchmark's process with the clients).
func BenchmarkFleetWorkerProcess(b *testing.B) {
	const agents, turns, inFlight = 1000, 3, 250
	fleetProcess(b, agents, turns, inFlight, signals.AgentOptions{Tools: []string{"fetch"}})
}

// BenchmarkFleetContexts: 1,000 agents on a worker process, each holding a
// 100 KB context (one turn whose tool returns 100 KB), 250 in flight. The
// worker's peak memory must stay under 1 GiB: its caches are bounded by
// bytes, not entries.
func BenchmarkFleetContexts(b *testing.B) {
	fleetProcess(b, 1000, 1, 250, signals.AgentOptions{Tools: []string{"context"}})
}

// BenchmarkTenThousandAgents: 10,000 agents on a worker process, each
// after one turn of the workload, mostly idle; then 200 turns of agents
// picked among them, one at a time, stay as quick as on an empty worker.
func BenchmarkTenThousandAgents(b *testing.B) {
	e := serverOnly(b)
	w := e.startWorkerProcess(b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	n := idleAgents(b)
	for i := 0; i < b.N; i++ {
		prefix := fmt.Sprintf("idle-%d", i)
		start := time.Now()
		_, ids, err := runFleet(ctx, e.agents, prefix, n, 1, 250, signals.AgentOptions{Tools: []string{"fetch"}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "create-turns/s")
		var times []time.Duration
		for t := range 200 {
			h, err := e.agents.Attach(ctx, ids[(t*7919)%len(ids)])
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			if _, err := h.Followup(ctx, "again", agent.Unacknowledged()); err != nil {
				b.Fatal(err)
			}
			if _, err := h.WaitIdle(ctx); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
		}
		b.ReportMetric(pctMs(times, 50), "turn-p50-ms")
		b.ReportMetric(pctMs(times, 99), "turn-p99-ms")
		b.ReportMetric(w.peakRSS(), "worker-peak-MiB")
	}
}

// idleAgents is how many agents BenchmarkTenThousandAgents creates:
// TETHER_BENCH_IDLE_AGENTS, 10,000 by default (fewer to profile quickly).
func idleAgents(b *testing.B) int {
	v := os.Getenv("TETHER_BENCH_IDLE_AGENTS")
	if v == "" {
		return 10_000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("TETHER_BENCH_IDLE_AGENTS %q: want a positive number", v)
	}
	return n
}

// fleetProcess runs the fleet against a worker process and reads every
// agent's log afterwards.
func fleetProcess(b *testing.B, agents, turns, inFlight int, opts signals.AgentOptions) {
	e := serverOnly(b)
	w := e.startWorkerProcess(b)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		times, ids, err := runFleet(ctx, e.agents, fmt.Sprintf("proc-%d", i), agents, turns, inFlight, opts)
		if err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		failed, reads, errs := readLogs(ctx, e.agents, ids, inFlight, 10*time.Second)
		for _, err := range errs {
			b.Logf("failed log read: %v", err)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(elapsed.Seconds(), "fleet-s")
		b.ReportMetric(float64(agents*turns)/elapsed.Seconds(), "turns/s")
		times.report(b)
		b.ReportMetric(float64(failed), "log-reads-failed")
		b.ReportMetric(pctMs(reads, 99), "log-read-p99-ms")
		b.ReportMetric(w.peakRSS(), "worker-peak-MiB")
		b.ReportMetric(procMemory(os.Getpid(), "VmHWM"), "server-process-peak-MiB")
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "server-process-heap-MiB")
	}
}

// fleetTimes are a fleet's client-observed turn times (message sent → idle
// seen): first turns, whose workflow task a new agent takes from the task
// queue any worker polls, and later ones, which go to the sticky queue of
// the worker that holds the agent.
type fleetTimes struct{ first, later []time.Duration }

func (f fleetTimes) all() []time.Duration { return append(slices.Clone(f.first), f.later...) }

// report adds the turn percentiles to b's metrics: all turns, then first
// and later turns apart.
func (f fleetTimes) report(b *testing.B) {
	b.ReportMetric(pctMs(f.all(), 50), "turn-p50-ms")
	b.ReportMetric(pctMs(f.all(), 99), "turn-p99-ms")
	b.ReportMetric(pctMs(f.first, 50), "first-turn-p50-ms")
	b.ReportMetric(pctMs(f.first, 99), "first-turn-p99-ms")
	if len(f.later) > 0 {
		b.ReportMetric(pctMs(f.later, 50), "later-turn-p50-ms")
		b.ReportMetric(pctMs(f.later, 99), "later-turn-p99-ms")
	}
}

// runFleet runs n agents of turns turns each, at most inFlight agents at
// once, and returns every turn's client-observed time and the agents' IDs.
func runFleet(ctx context.Context, agents *agent.Client, prefix string, n, turns, inFlight int,
	opts signals.AgentOptions) (fleetTimes, []string, error) {
	var (
		mu    sync.Mutex
		times fleetTimes
		ids   = make([]string, n)
		wg    sync.WaitGroup
	)
	errs := make(chan error, n)
	sem := make(chan struct{}, inFlight)
	for a := range n {
		ids[a] = fmt.Sprintf("%s-%d", prefix, a)
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			t, err := runAgent(ctx, agents, ids[a], turns, opts)
			mu.Lock()
			if len(t) > 0 {
				times.first = append(times.first, t[0])
				times.later = append(times.later, t[1:]...)
			}
			mu.Unlock()
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	return times, ids, <-errs
}

func runAgent(ctx context.Context, agents *agent.Client, id string, turns int, opts signals.AgentOptions) ([]time.Duration, error) {
	var times []time.Duration
	start := time.Now()
	h, err := agents.Create(ctx, agent.CreateOptions{ID: id, Options: opts, First: "turn 1"})
	if err != nil {
		return nil, err
	}
	for t := 1; t <= turns; t++ {
		if t > 1 {
			start = time.Now()
			if _, err := h.Followup(ctx, fmt.Sprintf("turn %d", t), agent.Unacknowledged()); err != nil {
				return times, err
			}
		}
		if _, err := h.WaitIdle(ctx); err != nil {
			return times, fmt.Errorf("%s turn %d: %w", id, t, err)
		}
		times = append(times, time.Since(start))
	}
	return times, nil
}

// readLogs reads every agent's whole log, inFlight at a time, each read
// given limit, and returns how many failed, how long each took and the
// first error of each kind.
func readLogs(ctx context.Context, agents *agent.Client, ids []string, inFlight int, limit time.Duration) (int, []time.Duration, map[string]error) {
	var (
		mu     sync.Mutex
		failed int
		times  []time.Duration
		errs   = map[string]error{}
		wg     sync.WaitGroup
	)
	sem := make(chan struct{}, inFlight)
	for _, id := range ids {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			rctx, cancel := context.WithTimeout(ctx, limit)
			defer cancel()
			start := time.Now()
			h, err := agents.Attach(rctx, id)
			if err == nil {
				_, err = h.Log(rctx)
			}
			mu.Lock()
			defer mu.Unlock()
			times = append(times, time.Since(start))
			if err != nil {
				failed++
				if k := fmt.Sprintf("%T", errors.Unwrap(err)); errs[k] == nil {
					errs[k] = fmt.Errorf("after %v: %w", time.Since(start).Round(time.Millisecond), err)
				}
			}
		})
	}
	wg.Wait()
	return failed, times, errs
}
