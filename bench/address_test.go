package bench

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/fx/temporalfx"
	"github.com/tetherdev/tether/internal/devserver"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// envAddress names the frontend (host:port) of a Temporal server that
// BenchmarkTurnLatency runs against instead of the embedded one, so that a
// user measures Tether beside the bare floor on their own cluster. The
// client's other settings (namespace, TLS, API key) come from Temporal's
// environment configuration (TEMPORAL_NAMESPACE, TEMPORAL_TLS_*,
// TEMPORAL_API_KEY, a profile), as cmd/worker's do.
const envAddress = "TETHER_BENCH_ADDRESS"

// latencyServer is where the turn latency subjects run: a server, a worker
// on queue running the workload and the floor, and the prefix of this
// run's workflow IDs.
type latencyServer struct {
	*env
	name   string // "embedded" or the address
	queue  string
	prefix string
}

// latencyTarget is the embedded server, or the server at envAddress. There
// the worker polls a task queue of this run's own, so that no other worker
// of that server takes its tasks, and a rerun meets none of an earlier
// run's workflows.
func latencyTarget(tb testing.TB) latencyServer {
	tb.Helper()
	addr := os.Getenv(envAddress)
	if addr == "" {
		return embeddedTarget(tb)
	}
	e := addressTarget(tb, addr, workflows.Config{}, registerFloor)
	e.prefix = "latency-" + e.prefix
	return e
}

// historyTarget is the embedded server with a worker of cfg, or the server
// at envAddress with such a worker on a queue of the run's own.
func historyTarget(tb testing.TB, cfg workflows.Config) latencyServer {
	tb.Helper()
	if addr := os.Getenv(envAddress); addr != "" {
		return addressTarget(tb, addr, cfg)
	}
	return latencyServer{env: serverWith(tb, cfg), name: "embedded", queue: signals.TaskQueue}
}

// addressTarget dials the server at addr and starts a worker of cfg there
// on a task queue of this run's own; prefix is the run's own too.
func addressTarget(tb testing.TB, addr string, cfg workflows.Config, more ...func(worker.Registry)) latencyServer {
	tb.Helper()
	c, err := dialAddress(addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	queue, run := runQueue()
	w, err := newWorker(c, queue, workload.Model{}, workloadTools(), cfg, more...)
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(w.Stop)
	return latencyServer{env: &env{c: c, agents: agent.New(c, queue)}, name: addr, queue: queue, prefix: run + "-"}
}

// envDynamicConfig adds dynamic config to the embedded server of the
// turn latency benchmark, as comma-separated key=value pairs (integers and
// booleans as such), e.g. history.transferProcessorMaxPollRPS=1000: what
// a server setting is worth to a turn, measured side by side.
const envDynamicConfig = "TETHER_BENCH_DYNAMIC_CONFIG"

// embeddedTarget is the embedded server, with envDynamicConfig's settings
// if any, and a worker running the workload and the floor.
func embeddedTarget(tb testing.TB) latencyServer {
	tb.Helper()
	extra, err := parseDynamicConfig(os.Getenv(envDynamicConfig))
	if err != nil {
		tb.Fatal(err)
	}
	if len(extra) == 0 {
		return latencyServer{env: server(tb, registerFloor), name: "embedded", queue: signals.TaskQueue, prefix: "latency-"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := devserver.Start(ctx, devserver.Options{SearchAttributes: devserver.DefaultSearchAttributes(), DynamicConfig: extra})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = srv.Stop() })
	c, err := dial(srv.HostPort(), srv.Namespace())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	w, err := newWorker(c, signals.TaskQueue, workload.Model{}, workloadTools(), workflows.Config{}, registerFloor)
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(w.Stop)
	return latencyServer{env: &env{srv: srv, c: c, agents: agent.New(c, signals.TaskQueue)},
		name: "embedded with " + os.Getenv(envDynamicConfig), queue: signals.TaskQueue, prefix: "latency-"}
}

// parseDynamicConfig reads envDynamicConfig's form.
func parseDynamicConfig(s string) (map[string]any, error) {
	out := map[string]any{}
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s: %q is not key=value", envDynamicConfig, kv)
		}
		if n, err := strconv.Atoi(v); err == nil {
			out[k] = n
		} else if b, err := strconv.ParseBool(v); err == nil {
			out[k] = b
		} else {
			out[k] = v
		}
	}
	return out, nil
}

// dialAddress dials the server at addr with Temporal's environment
// configuration and registers Tether's search attributes there if they
// are missing, as cmd/worker does.
func dialAddress(addr string) (client.Client, error) {
	opts, err := envconfig.LoadClientOptions(envconfig.LoadClientOptionsRequest{})
	if err != nil {
		return nil, fmt.Errorf("load Temporal client config: %w", err)
	}
	opts.HostPort = addr
	if opts.Namespace == "" {
		opts.Namespace = client.DefaultNamespace
	}
	opts.Logger = tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	if err := temporalfx.EnsureSearchAttributes(ctx, c, opts.Namespace); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// TestTurnLatencyRunsAgainstAServerGivenByAddress runs the latency
// subjects against a server named only by TETHER_BENCH_ADDRESS (the
// embedded one, reached as any cluster would be): each takes its turns on
// the run's own task queue, and the histories time every phase.
func TestTurnLatencyRunsAgainstAServerGivenByAddress(t *testing.T) {
	srv := serverOnly(t)
	t.Setenv(envAddress, srv.srv.HostPort())
	t.Setenv("TEMPORAL_NAMESPACE", srv.srv.Namespace())
	e := latencyTarget(t)
	require.Equal(t, srv.srv.HostPort(), e.name)
	require.NotEqual(t, signals.TaskQueue, e.queue)
	require.Len(t, e.queue, len(signals.TaskQueue), "a run's queue weighs in history what Tether's does")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, s := range []*subject{e.tetherSubject(t, "activity-tool", workload.Fetch, 3), e.floorSubject(t)} {
		for i := range 2 {
			require.NoError(t, s.turn(ctx, fmt.Sprintf("turn %d", i), true), s.name)
		}
		turns, ph, err := s.workflowTurns(ctx, srv.c, 1)
		require.NoError(t, err)
		require.Len(t, turns, 2, s.name)
		require.Len(t, ph.actDispatch, 3, s.name)
		require.Len(t, ph.modelRun, 2, s.name)
		require.NotEmpty(t, ph.wftDispatch, s.name)
	}
}

func TestDynamicConfigForTheEmbeddedServerIsReadAsKeyValuePairs(t *testing.T) {
	got, err := parseDynamicConfig("history.transferProcessorMaxPollRPS=1000, system.enableActivityEagerExecution=false,k=v")
	require.NoError(t, err)
	require.Equal(t, map[string]any{"history.transferProcessorMaxPollRPS": 1000,
		"system.enableActivityEagerExecution": false, "k": "v"}, got)
	_, err = parseDynamicConfig("history.transferProcessorMaxPollRPS")
	require.ErrorContains(t, err, "is not key=value")
}

// runQueue names a run's own task queue on a shared server, and the run:
// "tb" and 4 random letters or digits, as long as Tether's own queue
// (signals.TaskQueue), since a queue's name is written in every task
// scheduled (7 times an activity-tool turn), so that a history measured
// there weighs what it would on Tether's queue.
func runQueue() (queue, run string) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	run = string(signals.DrawnID(b))[signals.DrawnIDLen-4:]
	return "tb" + run, run
}
