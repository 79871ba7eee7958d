package e2e

import (
	"bytes"
	"fmt"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/agent"
)

// An idle agent the worker holds in its sticky cache parks two workflow
// coroutines, each a goroutine with its stack: the loop and the one that
// receives every signal. There were nine (a receiver per signal name),
// which took a third of a 10,000-agent worker's memory.
func TestAnIdleCachedAgentParksTwoCoroutines(t *testing.T) {
	e := newEnv(t)
	// The SDK's cache is the process's: earlier tests' agents may be in it
	// until purged (before this test's worker starts, as the SDK asks),
	// and their coroutines end soon after.
	worker.PurgeStickyWorkflowCache()
	require.Eventually(t, func() bool { return workflowCoroutines(t) == 0 }, 10*time.Second, 10*time.Millisecond)
	e.startWorker()
	ctx := ctxT(t, 60*time.Second)
	const agents = 20
	for i := range agents {
		h, err := e.agents.Create(ctx, agent.CreateOptions{ID: fmt.Sprintf("footprint-%d", i), First: "/say hi"})
		require.NoError(t, err)
		_, err = h.WaitIdle(ctx)
		require.NoError(t, err)
	}
	require.Equal(t, 2*agents, workflowCoroutines(t), "coroutines parked by %d idle agents", agents)
}

// workflowCoroutines counts the goroutines that are workflow coroutines
// of the SDK: the workflows this process's workers hold.
func workflowCoroutines(t *testing.T) int {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, pprof.Lookup("goroutine").WriteTo(&buf, 1))
	n := 0
	for _, rec := range strings.Split(buf.String(), "\n\n") {
		count, _, ok := strings.Cut(rec, " @ ")
		if !ok || !strings.Contains(rec, "internal.(*coroutineState).run") {
			continue
		}
		// A record starts "N @ <pcs>"; the first follows the header line.
		c, err := strconv.Atoi(count[strings.LastIndex(count, "\n")+1:])
		require.NoError(t, err, "goroutine record %q", count)
		n += c
	}
	return n
}
