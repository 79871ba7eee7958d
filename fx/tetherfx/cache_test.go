package tetherfx

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/telemetryfx"
	"github.com/tetherdev/tether/internal/devserver"
	"github.com/tetherdev/tether/signals"
)

// sdkStickyCacheSize is the SDK's default sticky cache size, restored for
// the package's later tests (the cache is the process's).
const sdkStickyCacheSize = 10_000

// --cached-agents bounds the agents the worker keeps in memory: of four
// idle agents it holds two, and one it let go answers its next turn all
// the same, rebuilt from its history.
func TestCachedAgentsBoundsTheAgentsTheWorkerHolds(t *testing.T) {
	t.Cleanup(func() { worker.SetStickyWorkflowCacheSize(sdkStickyCacheSize) })
	// --dev: the embedded server's own workers are the process's first, so
	// this is where the size must be set early to count.
	port, err := devserver.FreePorts("127.0.0.1", 1)
	require.NoError(t, err)
	cfg, err := configfx.Load([]string{"--dev", "--data-dir", t.TempDir(), "--port", strconv.Itoa(port[0]), "--ui-port", "0",
		"--console-addr", "", "--metrics-addr", "127.0.0.1:0", "--cached-agents", "2"}, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var endpoint telemetryfx.MetricsEndpoint
	var c client.Client
	app := fx.New(Worker(cfg, io.Discard), fx.Populate(&endpoint, &c))
	require.NoError(t, app.Start(ctx))
	defer func() { require.NoError(t, app.Stop(ctx)) }()

	agents := agent.New(c, cfg.TaskQueue)
	var first *agent.Handle
	for i := range 4 {
		h, err := agents.Create(ctx, agent.CreateOptions{ID: fmt.Sprintf("cached-%d", i),
			Options: signals.AgentOptions{Hooks: []string{}}, First: "/say hello"})
		require.NoError(t, err)
		_, err = h.WaitIdle(ctx)
		require.NoError(t, err)
		if first == nil {
			first = h
		}
	}
	require.Eventually(t, func() bool { // eviction ends a run asynchronously
		m, err := readMetrics(endpoint.URL)
		cached, ok := m[`tether_agents_cached`]
		return err == nil && ok && cached <= 2
	}, time.Minute, 20*time.Millisecond, "agents held of 4 with --cached-agents 2") // eviction waits for the worker, slow under load

	_, err = first.Followup(ctx, "/say again")
	require.NoError(t, err)
	st, err := first.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)
	log, err := first.Log(ctx)
	require.NoError(t, err)
	evs, err := eventlog.DecodeAll(log)
	require.NoError(t, err)
	var said []string
	for _, ev := range evs {
		if a, ok := ev.(eventlog.AssistantMessage); ok {
			said = append(said, a.Text)
		}
	}
	require.Equal(t, []string{"hello", "again"}, said)
}
