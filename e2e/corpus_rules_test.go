package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// Corpus scenarios for the paths of loop rules 4 to 9 that the other
// recording tests do not take: the upgrade maintenance task's
// Continue-As-New. (Edit before approve, rewind and fork record from their
// own tests.)

// requireChainReplays replays every run of agent id's chain and records
// run i as names[i] (an empty name records nothing).
func requireChainReplays(ctx context.Context, t *testing.T, e *env, id string, names ...string) [][]*historypb.HistoryEvent {
	t.Helper()
	runs, err := projection.FetchChain(ctx, e.c, id)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(runs), len(names), "runs of %s", id)
	out := make([][]*historypb.HistoryEvent, 0, len(runs))
	for i, run := range runs {
		requireReplays(t, e, run, workflow.Execution{ID: id})
		if i < len(names) && names[i] != "" {
			record(t, e.prefix+names[i], run)
		}
		out = append(out, run)
	}
	return out
}

// The upgrade maintenance task (rules 8) on an unversioned worker: the
// task is answered at idle, recorded as maintenance/done, and the run
// continues as new; the next run takes the followup.
func TestCorpusUpgradeTaskContinuesAsNew(t *testing.T) { inBothModes(t, corpusUpgradeTask) }

func corpusUpgradeTask(t *testing.T, e *env) {
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "upgrade", Options: signals.AgentOptions{Tools: []string{"echo"}},
		First: `/tool echo {"text":"before"}`})
	require.NoError(t, err)
	waitIdle(ctx, t, h)
	m, err := h.RunMaintenance(ctx, signals.TaskUpgrade)
	require.NoError(t, err)
	require.Equal(t, signals.TaskUpgrade, m.Task)
	waitFor(t, 30*time.Second, "the upgraded run to continue as new", func() bool {
		runs, err := projection.FetchChain(ctx, e.c, h.ID)
		return err == nil && len(runs) >= 2
	})
	_, err = h.Followup(ctx, `/tool echo {"text":"after"}`)
	require.NoError(t, err)
	waitIdle(ctx, t, h)

	evs := requireProjects(ctx, t, e, h)
	done := ofType[eventlog.MaintenanceDone](evs)
	require.Len(t, done, 1)
	require.Equal(t, string(signals.TaskUpgrade), done[0].Task)
	require.Len(t, ofType[eventlog.TurnEnd](evs), 2)
	runs := requireChainReplays(ctx, t, e, h.ID, "upgrade-first-run", "upgrade-second-run")
	require.Len(t, runs, 2, "one Continue-As-New, for the upgrade")
	require.NoError(t, h.Dispose(ctx, ""))
}
