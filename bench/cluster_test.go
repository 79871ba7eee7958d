package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/signals"
)

// clusterEnv is what scripts/cluster/run tells BenchmarkClusterFleet.
type clusterEnv struct {
	Address   string         // TETHER_BENCH_ADDRESS: the cluster's frontend
	Namespace string         // TETHER_BENCH_NAMESPACE, default "default"
	Agents    int            // TETHER_BENCH_AGENTS, default 1000
	Procs     map[string]int // TETHER_BENCH_PROCS: name=pid,... of the server and workers
	Kill      string         // TETHER_BENCH_KILL: the worker to SIGKILL halfway
	Postgres  int            // TETHER_BENCH_POSTGRES: the postmaster's pid, for CPU time
}

func loadClusterEnv(env func(string) string) (clusterEnv, error) {
	e := clusterEnv{Address: env("TETHER_BENCH_ADDRESS"), Namespace: env("TETHER_BENCH_NAMESPACE"), Agents: 1000,
		Procs: map[string]int{}, Kill: env("TETHER_BENCH_KILL")}
	if e.Namespace == "" {
		e.Namespace = "default"
	}
	if v := env("TETHER_BENCH_AGENTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 {
			return e, fmt.Errorf("TETHER_BENCH_AGENTS %q: want a number of at least 2", v)
		}
		e.Agents = n
	}
	for _, item := range strings.Split(env("TETHER_BENCH_PROCS"), ",") {
		if item == "" {
			continue
		}
		name, pid, ok := strings.Cut(item, "=")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 {
			return e, fmt.Errorf("TETHER_BENCH_PROCS item %q: want name=pid", item)
		}
		e.Procs[name] = n
	}
	if v := env("TETHER_BENCH_POSTGRES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return e, fmt.Errorf("TETHER_BENCH_POSTGRES %q: want a pid", v)
		}
		e.Postgres = n
	}
	if _, ok := e.Procs[e.Kill]; e.Kill != "" && !ok {
		return e, fmt.Errorf("TETHER_BENCH_KILL %q is not named in TETHER_BENCH_PROCS", e.Kill)
	}
	return e, nil
}

// BenchmarkClusterFleet is BenchmarkThousandAgents against an external
// cluster (scripts/cluster/run): 1,000 agents of 3 turns of the workload,
// 200 in flight, on the workers already polling the cluster. With
// TETHER_BENCH_KILL it SIGKILLs that worker once half the turns are done,
// then proves from every agent's history that each turn was answered once.
// It reports throughput, turn latency (followup → idle, pushed by the
// wait-idle update), the recovery after the kill, the processes' CPU time
// and memory, and which worker ran what. Skipped without
// TETHER_BENCH_ADDRESS.
func BenchmarkClusterFleet(b *testing.B) {
	env, err := loadClusterEnv(os.Getenv)
	if err != nil {
		b.Fatal(err)
	}
	if env.Address == "" {
		b.Skip("TETHER_BENCH_ADDRESS is not set: scripts/cluster/run runs this against a cluster")
	}
	c, err := client.Dial(client.Options{HostPort: env.Address, Namespace: env.Namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	for i := 0; i < b.N; i++ {
		f := &fleet{env: env, agents: agent.New(c, signals.TaskQueue), c: c, turns: 3,
			prefix: fmt.Sprintf("cluster-%d-%d", time.Now().Unix(), i)}
		f.run(ctx, b)
		rep, err := f.check(ctx)
		if err != nil {
			b.Fatal(err)
		}
		f.report(b, rep)
	}
}

// turnTiming is one turn as the client saw it.
type turnTiming struct {
	agent, turn int
	start, end  time.Time
}

// fleet is one run of the cluster benchmark.
type fleet struct {
	env    clusterEnv
	agents *agent.Client
	c      client.Client
	turns  int
	prefix string

	mu      sync.Mutex
	timings []turnTiming
	done    atomic.Int64

	start, end time.Time
	killed     time.Time          // zero without a kill
	memory     map[string]rss     // the killed worker's just before the kill
	cpu0, cpu1 map[string]float64 // CPU seconds of each process at the start, at the end (or the kill)
	killErr    error
}

// run drives every agent to its last turn, killing env.Kill halfway.
func (f *fleet) run(ctx context.Context, b *testing.B) {
	total := int64(f.env.Agents * f.turns)
	half, finished, killed := make(chan struct{}), make(chan struct{}), make(chan struct{})
	f.memory, f.cpu1 = map[string]rss{}, map[string]float64{}
	f.cpu0 = f.readCPU()
	go f.killHalfway(half, finished, killed)
	f.start = time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, f.env.Agents)
	sem := make(chan struct{}, 200) // bounded client concurrency, as BenchmarkThousandAgents
	for a := range f.env.Agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs <- f.runAgent(ctx, a, func() {
				n := f.done.Add(1)
				if n == total/2 {
					close(half)
				}
				if n%max(total/10, 1) == 0 {
					fmt.Fprintf(os.Stderr, "%s  %d of %d turns done\n", time.Now().Format("15:04:05"), n, total)
				}
			})
		}()
	}
	wg.Wait()
	f.end = time.Now()
	close(finished)
	<-killed
	for name, s := range f.readCPU() {
		if name != f.env.Kill {
			f.cpu1[name] = s
		}
	}
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	if f.killErr != nil {
		b.Fatal(f.killErr)
	}
}

// killHalfway SIGKILLs env.Kill once half the turns are done, unless the
// run finished (failed) first.
func (f *fleet) killHalfway(half, finished <-chan struct{}, killed chan<- struct{}) {
	defer close(killed)
	if f.env.Kill == "" {
		return
	}
	select {
	case <-half:
	case <-finished:
		return
	}
	pid := f.env.Procs[f.env.Kill]
	f.memory[f.env.Kill], f.killErr = readRSS(pid)
	if f.killErr != nil {
		return
	}
	f.cpu1[f.env.Kill], f.killErr = cpuSeconds(pid)
	if f.killErr != nil {
		return
	}
	if f.killErr = syscall.Kill(pid, syscall.SIGKILL); f.killErr == nil {
		f.killed = time.Now()
	}
}

// runAgent creates an idle agent, then takes its turns: each a followup
// and a wait for idle, timed.
func (f *fleet) runAgent(ctx context.Context, a int, turnDone func()) error {
	id := f.agentID(a)
	h, err := f.agents.Create(ctx, agent.CreateOptions{ID: id, Options: signals.AgentOptions{
		Provider: workload.Provider, Tools: []string{workload.Fetch}}})
	if err != nil {
		return fmt.Errorf("create %s: %w", id, err)
	}
	for t := 1; t <= f.turns; t++ {
		start := time.Now()
		if _, err := h.Followup(ctx, fmt.Sprintf("turn %d", t), agent.Unacknowledged()); err != nil {
			return fmt.Errorf("%s followup %d: %w", id, t, err)
		}
		if err := waitTurnDone(ctx, f.c, id, t); err != nil {
			return fmt.Errorf("%s turn %d: %w", id, t, err)
		}
		f.mu.Lock()
		f.timings = append(f.timings, turnTiming{agent: a, turn: t, start: start, end: time.Now()})
		f.mu.Unlock()
		turnDone()
	}
	return nil
}

func (f *fleet) agentID(a int) string { return fmt.Sprintf("%s-%d", f.prefix, a) }

// readCPU reads the CPU seconds of every named process and PostgreSQL's;
// one that cannot be read is left out.
func (f *fleet) readCPU() map[string]float64 {
	pids := maps.Clone(f.env.Procs)
	if f.env.Postgres > 0 {
		pids["postgres"] = f.env.Postgres
	}
	out := map[string]float64{}
	for name, pid := range pids {
		if s, err := cpuSeconds(pid); err == nil {
			out[name] = s
		}
	}
	return out
}

// waitTurnDone waits for the agent to be idle with the wait-idle update
// (pushed, not polled), under one update ID per turn. The SDK gives up on
// an update the workflow has not completed within one 60 s long poll,
// though the server still holds it: on a saturated cluster a first turn
// can wait longer than that, so asking again under the same ID attaches
// to the same update until ctx ends.
func waitTurnDone(ctx context.Context, c client.Client, id string, turn int) error {
	for {
		err := waitIdleOnce(ctx, c, id, fmt.Sprintf("bench-wait-idle-%d", turn))
		var timeout *client.WorkflowUpdateServiceTimeoutOrCanceledError
		if !errors.As(err, &timeout) || ctx.Err() != nil {
			return err
		}
	}
}

func waitIdleOnce(ctx context.Context, c client.Client, id, updateID string) error {
	u, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: id, UpdateID: updateID, UpdateName: signals.WaitIdleUpdate.Name, Args: []any{signals.WaitIdle{}},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return err
	}
	var st signals.StatusView
	if err := u.Get(ctx, &st); err != nil && !isIdleRejection(err) {
		return err
	}
	return nil
}

// isIdleRejection: the wait-idle update rejects a call on an idle agent.
func isIdleRejection(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == signals.RejectIdle
}
