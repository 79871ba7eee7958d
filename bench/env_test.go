package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/devserver"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// env is the embedded server of `cmd/worker --dev` (internal/devserver,
// SQLite in memory, tuned as it ships) with one worker running the
// workload as cmd/worker runs it: in the benchmark's process, or in a
// process of its own (startWorkerProcess).
type env struct {
	srv    *devserver.Server
	c      client.Client
	agents *agent.Client
}

// server starts the embedded server and a worker with the workload's
// model and tools; more registers further workflows or activities (the
// floor) on the same worker before it starts.
func server(b testing.TB, more ...func(worker.Registry)) *env {
	b.Helper()
	return serverWith(b, workflows.Config{}, more...)
}

// serverWith is server with the worker's workflow settings cfg.
func serverWith(b testing.TB, cfg workflows.Config, more ...func(worker.Registry)) *env {
	b.Helper()
	e := serverOnly(b)
	w, err := newWorker(e.c, signals.TaskQueue, workload.Model{}, workloadTools(), cfg, more...)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Stop)
	return e
}

// serverOnly starts the embedded server without a worker.
func serverOnly(b testing.TB) *env {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := devserver.Start(ctx, devserver.Options{SearchAttributes: devserver.DefaultSearchAttributes()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Stop() })
	c, err := dial(srv.HostPort(), srv.Namespace())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return &env{srv: srv, c: c, agents: agent.New(c, signals.TaskQueue)}
}

func dial(hostPort, namespace string) (client.Client, error) {
	return client.Dial(client.Options{HostPort: hostPort, Namespace: namespace,
		Logger: tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
}

// workloadTools are the workload's tool as an activity (workload.Fetch)
// and as a fast local tool (workload.Read), and "context", which returns
// 100 KB.
func workloadTools() *tools.Registry {
	reg, _ := tools.NewRegistry(workload.Tool(workload.Fetch, false), workload.Tool(workload.Read, true), contextTool())
	return reg
}

// contextTool returns 100 KB: an agent that called it holds a 100 KB
// context.
func contextTool() tools.Tool {
	return tools.Tool{Name: "context", Description: "Fetch 100 KB.", Run: func(_ context.Context, c tools.Call) (tools.Result, error) {
		return tools.Result{Content: strings.Repeat(c.CallID+" ", 100<<10/(len(c.CallID)+1)+1)[:100<<10]}, nil
	}}
}

// newWorker builds a worker on queue whose default provider is model, as
// workerfx builds it: one log reader shared by the activities, into which
// the workflow publishes its snapshots.
func newWorker(c client.Client, queue string, model activities.Provider, reg *tools.Registry, wcfg workflows.Config,
	more ...func(worker.Registry)) (worker.Worker, error) {
	reader := activities.NewLogReader(activities.WorkflowLog{Client: c}, 0)
	//lint:ignore SA1019 the build ID as cmd/worker records it (fx/workerfx)
	// The workflow pollers cmd/worker runs; TETHER_BENCH_POLLERS=sdk
	// measures the SDK's default poller instead.
	opts := worker.Options{BuildID: workerfx.BuildID(), WorkflowTaskPollerBehavior: workerfx.WorkflowPollers()}
	if os.Getenv("TETHER_BENCH_POLLERS") == "sdk" {
		opts.WorkflowTaskPollerBehavior = nil
	}
	w := worker.New(c, queue, opts)
	cfg := workerfx.WorkflowConfig(wcfg, nil, reg)
	cfg.Snapshots = reader
	workflows.Register(w, cfg)
	model2 := &activities.Model{Providers: map[string]activities.Provider{workload.Provider: model, scripted.Name: scripted.Provider{}},
		DefaultProvider: workload.Provider, Tools: reg, Log: reader}
	tool := &activities.Tool{Runner: reg, Log: reader}
	if err := model2.Validate(); err != nil {
		return nil, err
	}
	activities.Register(w, model2, tool)
	for _, m := range more {
		m(w)
	}
	return w, nil
}

// A worker process is the benchmark binary run again with envAddr set
// (see recovery_test.go); envRole says which worker it runs.
const (
	envRole      = "TETHER_BENCH_WORKER_ROLE"
	roleWorkload = "workload" // runWorkerProcess; otherwise runRecoveryWorker
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(envAddr); addr != "" {
		if os.Getenv(envRole) == roleWorkload {
			os.Exit(runWorkerProcess(addr, os.Getenv(envNamespace)))
		}
		os.Exit(runRecoveryWorker(addr))
	}
	os.Exit(m.Run())
}

// runWorkerProcess is the body of a worker process: the workload's worker
// until SIGTERM.
func runWorkerProcess(addr, namespace string) int {
	c, err := dial(addr, namespace)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dial:", err)
		return 1
	}
	defer c.Close()
	w, err := newWorker(c, signals.TaskQueue, workload.Model{}, workloadTools(), workflows.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	interrupt := make(chan any)
	go func() {
		<-stop
		if path := os.Getenv(envHeapProfile); path != "" {
			writeHeapProfile(path)
		}
		close(interrupt)
	}()
	if err := w.Run(interrupt); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	return 0
}

// envHeapProfile names a file the worker process writes its heap profile
// to when told to stop, while it still holds its agents.
const envHeapProfile = "TETHER_BENCH_WORKER_HEAP"

// writeHeapProfile writes the live heap, after a collection, to path.
func writeHeapProfile(path string) {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "heap profile:", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		fmt.Fprintln(os.Stderr, "heap profile:", err)
	}
	if g, err := os.Create(path + ".goroutines"); err == nil {
		_ = pprof.Lookup("goroutine").WriteTo(g, 1)
		g.Close()
	}
	fmt.Fprintf(os.Stderr, "heap profile written to %s; %d goroutines\n", path, runtime.NumGoroutine())
}

// workerProcess is a worker running in a process of its own.
type workerProcess struct{ cmd *exec.Cmd }

// startWorkerProcess runs the workload's worker in its own process.
func (e *env) startWorkerProcess(b testing.TB) *workerProcess {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), envRole+"="+roleWorkload, envAddr+"="+e.srv.HostPort(), envNamespace+"="+e.srv.Namespace())
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_, _ = cmd.Process.Wait()
	})
	return &workerProcess{cmd: cmd}
}

// peakRSS is the process's peak resident memory (VmHWM), in MiB.
func (w *workerProcess) peakRSS() float64 { return procMemory(w.cmd.Process.Pid, "VmHWM") }

// procMemory reads a memory figure of /proc/<pid>/status in MiB (0 if it
// cannot).
func procMemory(pid int, field string) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(v), "%f kB", &kb)
			return kb / 1024
		}
	}
	return 0
}
