package chaos

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/fx/toolfx"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// TestChaos is the crash-and-abuse run (see the package doc). Its flags
// size it; the defaults are the short run CI makes. With
// -chaos.no-search-attributes its workers write no search attributes, so
// their logs project from histories in which a turn ending on a model's
// answer wrote nothing at all.
func TestChaos(t *testing.T) {
	bare := *flagBare
	seed := *flagSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	fmt.Fprintf(os.Stderr, "chaos: seed %d (again: make chaos SEED=%d)\n", seed, seed)
	if bare {
		fmt.Fprintln(os.Stderr, "chaos: workers run with --no-search-attributes")
	}
	dir := runDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(*flagKills+*flagRestarts)*2**flagInterval+30*time.Minute)
	defer cancel()
	mcpArgs, err := mcpWorkerArgs(dir)
	require.NoError(t, err)
	c := startCluster(ctx, t, dir, bare, mcpArgs...)
	fleetClient, floodClient, faultClient := dial(t, c.hostPort()), dial(t, c.hostPort()), dial(t, c.hostPort())

	led, streams := newLedger(), newStreamTally()
	drivers := fleet(seed, *flagAgents, agent.New(fleetClient, ""), led, streams)
	fl := &flood{c: floodClient, ns: "default", rng: rand.New(rand.NewPCG(seed, 2)), led: led, bigEvery: *flagBigEvery,
		maxStart: *flagStarts, tally: map[string]map[string]int{}, starts: map[string]string{}}
	cf := newClientFaults(faultClient, led, seed)
	var ids []string
	for _, d := range drivers {
		ids = append(ids, d.id)
		fl.targets = append(fl.targets, d.id)
		if d.kind == kindSpawn {
			fl.spawners = append(fl.spawners, d.id)
		}
	}

	began := time.Now()
	quiet := make(chan struct{})
	var wg sync.WaitGroup
	for _, d := range drivers {
		wg.Add(1)
		go func() { defer wg.Done(); d.run(ctx, quiet, *flagRounds, *flagRound) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); fl.run(ctx, quiet, *flagFlood) }()
	wg.Add(1)
	go func() { defer wg.Done(); cf.run(ctx, quiet, *flagFaults) }()
	steps := newSchedule(rand.New(rand.NewPCG(seed, 1)), *flagKills, *flagRestarts, *flagInterval)
	err = c.runSchedule(ctx, steps, t.Logf)
	close(quiet)
	require.NoError(t, err)
	wg.Wait()
	t.Logf("fleet done after %s; waiting for quiescence", time.Since(began).Round(time.Second))
	ids = append(ids, cf.agentIDs()...)

	valid := fl.startedBy("start-absurd-valid")
	qctx, qcancel := context.WithTimeout(ctx, 5*time.Minute)
	err = quiesce(qctx, fleetClient, append(slices.Clone(ids), valid...))
	qcancel()
	if err != nil { // the checks would wait on agents that never settle
		t.Fatalf("chaos: %v (seed %d, run directory %s); the fleet saw:\n%s", err, seed, dir, joinLimited(led.errs, 50))
	}
	wall := time.Since(began)

	res := check(ctx, t, fleetClient, dir, ids, led, streams, fl, cf)
	v := res.v
	report(t, seed, wall, c, led, streams, fl, cf, res)
	if len(v.list) > 0 {
		t.Errorf("chaos: %d violations (seed %d, run directory %s):\n%s", len(v.list), seed, dir, joinLimited(v.list, 200))
	}
}

// startCluster starts the server on dir's database and a worker with
// extra flags, both stopped when t ends.
func startCluster(ctx context.Context, t *testing.T, dir string, bare bool, extra ...string) *cluster {
	c := &cluster{bin: os.Args[0], dir: dir, port: freePort(t), starts: map[string]int{}}
	c.workerArgs = []string{"--address", c.hostPort(), "--namespace", "default", "--max-run-turns", "3",
		"--max-run-events", "300", "--stream-addr", "127.0.0.1:0"}
	if bare {
		c.workerArgs = append(c.workerArgs, "--no-search-attributes")
	}
	c.workerArgs = append(c.workerArgs, extra...)
	t.Cleanup(c.stop)
	sctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	require.NoError(t, c.startServer(sctx))
	require.NoError(t, c.startWorker())
	return c
}

// fleet makes the drivers: agent i has kind i (shifted by the seed), its
// own random stream, and the ID "c<i>-<kind>".
func fleet(seed uint64, n int, agents *agent.Client, led *ledger, streams *streamTally) []*driver {
	shift := rand.New(rand.NewPCG(seed, 3)).IntN(len(kinds))
	out := make([]*driver, n)
	for i := range out {
		k := kinds[(i+shift)%len(kinds)]
		out[i] = &driver{id: fmt.Sprintf("c%02d-%s", i, k), kind: k, agents: agents, rng: rand.New(rand.NewPCG(seed, uint64(100+i))),
			led: led, streams: streams, decided: map[string]bool{}}
	}
	return out
}

// replayConfig is the worker's workflow configuration over the same tools
// and MCP server.
func replayConfig() (workflows.Config, error) {
	reg, err := toolfx.New(toolfx.Params{Extra: []tools.Tool{journaled("", "echo", echoPace), journaled("", "slow", slowPace)}})
	if err != nil {
		return workflows.Config{}, err
	}
	cfg := workerfx.WorkflowConfig(workflows.Config{}, nil, reg)
	cfg.Tools = append(cfg.Tools, signals.MCPGrant{Server: mcpServer}.String())
	return cfg, nil
}

// runDir is -chaos.dir, or a temporary directory removed when the run
// passes.
func runDir(t *testing.T) string {
	dir := *flagDir
	if dir == "" {
		var err error
		dir, err = os.MkdirTemp("", "tether-chaos-")
		require.NoError(t, err)
		t.Cleanup(func() {
			if !t.Failed() {
				_ = os.RemoveAll(dir)
			}
		})
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "logs"), 0o755))
	return dir
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func dial(t *testing.T, hostPort string) client.Client {
	c, err := client.Dial(client.Options{HostPort: hostPort, Namespace: "default",
		Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func joinLimited(lines []string, n int) string {
	out := ""
	for i, l := range lines {
		if i == n {
			return out + "… and " + strconv.Itoa(len(lines)-n) + " more"
		}
		out += l + "\n"
	}
	return out
}
