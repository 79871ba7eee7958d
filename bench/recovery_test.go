package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/temporalfx"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// Environment of a worker process started by BenchmarkCrashRecovery: the
// benchmark binary re-executed, so it can be killed with SIGKILL.
const (
	envAddr      = "TETHER_BENCH_WORKER_ADDR"
	envNamespace = "TETHER_BENCH_WORKER_NAMESPACE"
	envDir       = "TETHER_BENCH_WORKER_DIR"
	envHeartbeat = "TETHER_BENCH_HEARTBEAT_TIMEOUT"
	envInterval  = "TETHER_BENCH_HEARTBEAT_INTERVAL"
	envSticky    = "TETHER_BENCH_STICKY_TIMEOUT"
)

// runRecoveryWorker is a worker whose "hold" tool writes when each attempt
// starts and never finishes a first attempt: its process is killed then.
func runRecoveryWorker(addr string) int {
	hb, err1 := time.ParseDuration(os.Getenv(envHeartbeat))
	every, err2 := time.ParseDuration(os.Getenv(envInterval))
	c, err3 := client.Dial(client.Options{HostPort: addr, Namespace: os.Getenv(envNamespace)})
	if err := firstErr(err1, err2, err3); err != nil {
		fmt.Fprintln(os.Stderr, "recovery worker:", err)
		return 1
	}
	defer c.Close()
	dir := os.Getenv(envDir)
	reg, err := tools.NewRegistry(tools.Tool{Name: "hold", Description: "Hold the first attempt.",
		Run: func(ctx context.Context, call tools.Call) (tools.Result, error) {
			attempt := activity.GetInfo(ctx).Attempt
			stamp(dir, "start", fmt.Sprintf("%s %d", call.AgentID, attempt))
			if attempt == 1 {
				select {} // until SIGKILL
			}
			return tools.Result{Content: "held"}, nil
		}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "recovery worker:", err)
		return 1
	}
	reader := activities.NewLogReader(activities.WorkflowLog{Client: c}, 0)
	sticky, err4 := time.ParseDuration(os.Getenv(envSticky))
	if err4 != nil {
		fmt.Fprintln(os.Stderr, "recovery worker:", err4)
		return 1
	}
	w := worker.New(c, signals.TaskQueue, worker.Options{MaxHeartbeatThrottleInterval: every, StickyScheduleToStartTimeout: sticky})
	workflows.Register(w, workerfx.WorkflowConfig(workflows.Config{ModelHeartbeat: hb, ToolHeartbeat: hb}, nil, reg))
	beat := min(activities.DefaultHeartbeatEvery, every)
	activities.Register(w,
		&activities.Model{Providers: map[string]activities.Provider{scripted.Name: scripted.Provider{}},
			DefaultProvider: scripted.Name, Tools: reg, Log: reader, HeartbeatEvery: beat},
		&activities.Tool{Runner: reg, Log: reader, HeartbeatEvery: beat})
	if err := w.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "recovery worker:", err)
		return 1
	}
	stamp(dir, "ready", "")
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	<-stop
	w.Stop()
	return 0
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// stamp appends "<unix ns> <what>" to dir/<file>.log.
func stamp(dir, file, what string) {
	f, err := os.OpenFile(dir+"/"+file+".log", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%d %s\n", time.Now().UnixNano(), what); err != nil {
		panic(err)
	}
}

// stamped waits until dir/<file>.log has a line whose text is what and
// returns its time.
func stamped(b *testing.B, dir, file, what string) time.Time {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(dir + "/" + file + ".log")
		lines := strings.Split(string(data), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			ns, text, ok := strings.Cut(lines[i], " ")
			if n, err := strconv.ParseInt(ns, 10, 64); ok && err == nil && text == what {
				return time.Unix(0, n)
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	b.Fatalf("no %q in %s.log", what, file)
	return time.Time{}
}

// recoveryConfig is what decides how soon a dead worker's call runs again.
type recoveryConfig struct{ timeout, interval, sticky time.Duration }

// BenchmarkCrashRecovery measures how soon a tool call whose worker was
// killed with SIGKILL runs again: from the kill to the tool running again
// on a worker process started right after the kill. Each iteration is a new
// agent whose first tool attempt hangs; the kill comes at a different point
// of the heartbeat cycle each time. Also reported: how long the restarted
// process took to poll (its share of the recovery).
func BenchmarkCrashRecovery(b *testing.B) {
	for _, cfg := range []recoveryConfig{
		{workflows.DefaultHeartbeat, configfx.DefaultHeartbeatInterval, configfx.DefaultStickyTimeout}, // the defaults
		{workflows.DefaultHeartbeat, configfx.DefaultHeartbeatInterval, 5 * time.Second},               // Temporal's sticky timeout
		{2 * time.Second, 500 * time.Millisecond, time.Second},
	} {
		b.Run(fmt.Sprintf("heartbeat-%s-every-%s-sticky-%s", cfg.timeout, cfg.interval, cfg.sticky), func(b *testing.B) {
			crashRecovery(b, cfg)
		})
	}
}

func crashRecovery(b *testing.B, cfg recoveryConfig) {
	timeout, interval := cfg.timeout, cfg.interval
	ts, agents := bareServer(b)
	dir := b.TempDir()
	start := func() (*exec.Cmd, time.Time) {
		cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
		cmd.Env = append(os.Environ(), envAddr+"="+ts.GetFrontendHostPort(), envNamespace+"="+ts.GetDefaultNamespace(),
			envDir+"="+dir, envHeartbeat+"="+timeout.String(), envInterval+"="+interval.String(), envSticky+"="+cfg.sticky.String())
		cmd.Stderr = os.Stderr
		at := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
		return cmd, at
	}
	proc, _ := start()
	ctx := context.Background()
	var recovery, ready []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprintf("recover-%d", i)
		if _, err := agents.Create(ctx, agent.CreateOptions{ID: id,
			Options: signals.AgentOptions{Provider: scripted.Name, Tools: []string{"hold"}}, First: "/tool hold {}"}); err != nil {
			b.Fatal(err)
		}
		stamped(b, dir, "start", id+" 1")
		time.Sleep(time.Duration(i%4) * interval / 4) // a different point of the heartbeat cycle
		killed := time.Now()
		if err := proc.Process.Kill(); err != nil {
			b.Fatal(err)
		}
		_, _ = proc.Process.Wait()
		var began time.Time
		proc, began = start()
		recovery = append(recovery, stamped(b, dir, "start", id+" 2").Sub(killed))
		ready = append(ready, readyAt(b, dir, i+2).Sub(began))
	}
	b.StopTimer()
	slices.Sort(recovery)
	slices.Sort(ready)
	b.ReportMetric(recovery[len(recovery)/2].Seconds(), "p50-s-kill-to-rerun")
	b.ReportMetric(recovery[0].Seconds(), "min-s-kill-to-rerun")
	b.ReportMetric(recovery[len(recovery)-1].Seconds(), "max-s-kill-to-rerun")
	b.ReportMetric(ready[len(ready)/2].Seconds(), "p50-s-worker-start")
}

// readyAt is when the n-th worker process said it polls.
func readyAt(b *testing.B, dir string, n int) time.Time {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(dir + "/ready.log")
		if lines := strings.Fields(string(data)); len(lines) >= n {
			ns, err := strconv.ParseInt(lines[n-1], 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return time.Unix(0, ns)
		}
		time.Sleep(2 * time.Millisecond)
	}
	b.Fatalf("worker %d never became ready", n)
	return time.Time{}
}

// bareServer is an embedded server with Tether's search attributes and no
// worker: the benchmark's worker processes are the only ones.
func bareServer(b *testing.B) (*temporaltest.TestServer, *agent.Client) {
	ts := temporaltest.NewServer(temporaltest.WithT(&testing.T{}), testserver.Options())
	b.Cleanup(ts.Stop)
	c := ts.GetDefaultClient()
	attrs := map[string]enumspb.IndexedValueType{}
	for n, k := range signals.SearchAttributeKinds {
		attrs[n] = temporalfx.IndexedType(k)
	}
	if _, err := c.OperatorService().AddSearchAttributes(context.Background(), &operatorservice.AddSearchAttributesRequest{
		Namespace: ts.GetDefaultNamespace(), SearchAttributes: attrs}); err != nil {
		b.Fatal(err)
	}
	return ts, agent.New(c, signals.TaskQueue)
}
