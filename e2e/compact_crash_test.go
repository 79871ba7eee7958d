package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Compaction survives a worker crash: the worker running the summary is
// killed with SIGKILL; a new worker summarises the same prefix and the
// summary is recorded once.
func TestCompactionSurvivesAWorkerKilledMidSummary(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	ctx := ctxT(t, 2*time.Minute)
	first := e.startWorkerProcess(dir, "block")
	long := strings.Repeat("lorem ipsum ", 60)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "compact-crash", First: `/tool echo {"text":"` + long + `"}`,
		Options: signals.AgentOptions{Tools: []string{"echo"}, Compaction: &signals.Compaction{KeepRecent: 2}}})
	require.NoError(t, err)
	for _, m := range []string{`/tool echo {"text":"` + long + `"}`, "/say done"} {
		_, err = h.WaitIdle(ctx)
		require.NoError(t, err)
		_, err = h.Followup(ctx, m)
		require.NoError(t, err)
	}
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	done := make(chan error, 1)
	var result signals.Maintained
	go func() {
		var err error
		result, err = h.RunMaintenance(ctx, signals.TaskCompact)
		done <- err
	}()
	waitFor(t, time.Minute, "the summary to start", func() bool { return len(readLines(t, dir, "summary")) >= 2 })
	require.NoError(t, first.Process.Kill())
	_, _ = first.Process.Wait()
	e.startWorkerProcess(dir, "fast")

	require.NoError(t, <-done)
	require.Less(t, result.After, result.Before)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	compacted := ofType[eventlog.ContextCompacted](events(t, log))
	require.Len(t, compacted, 1)
	starts := readLines(t, dir, "summary")
	require.Equal(t, 4, len(starts), "two attempts of the same summary activity: %v", starts)
	require.Equal(t, starts[1], starts[3], "the same activity, retried after the crash")
}
