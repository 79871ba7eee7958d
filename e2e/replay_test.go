package e2e

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

var (
	recordHistories = flag.Bool("record-histories", false, "rewrite workflows/testdata/histories from fresh runs")
	// recordPrefix names a generation of recordings (rules3-, say), so a new
	// generation joins the corpus beside the histories recorded before.
	recordPrefix = flag.String("record-prefix", "", "prefix the names of the histories -record-histories writes")
)

// A scenario touching every command the loop issues: tool calls, steering,
// inject, cancel with a dangling call, a followup turn, dispose. Its history
// replays against the workflow code, its projection equals its log, and with
// -record-histories it becomes part of the replay corpus.
func TestScenarioHistoryReplaysAndProjects(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	e.startWorkerProcess(dir, "block")
	ctx := ctxT(t, time.Minute)

	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "scenario", Options: signals.AgentOptions{SystemPrompt: "replay me", Tools: []string{"echo", "slow"}},
		First: "/tool echo {}",
	})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	_, err = h.Inject(ctx, "background facts")
	require.NoError(t, err)
	_, err = h.Followup(ctx, "/tool echo {}\n/tool slow {}")
	require.NoError(t, err)
	waitFor(t, 30*time.Second, "the slow tool to start", func() bool { return len(readLines(t, dir, "slow")) >= 2 })
	_, err = h.Steer(ctx, "never mind")
	require.NoError(t, err)
	require.NoError(t, h.Cancel(ctx, "operator stop", true))
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, st.Turn, "the kept steer opened turn 3")
	log, err := h.Log(ctx)
	require.NoError(t, err)
	ends := ofType[eventlog.TurnEnd](events(t, log))
	require.Equal(t, []eventlog.EndReason{eventlog.EndCompleted, eventlog.EndCanceled, eventlog.EndCompleted},
		[]eventlog.EndReason{ends[0].Reason, ends[1].Reason, ends[2].Reason})
	require.NoError(t, h.Dispose(ctx, "scenario over"))

	events, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	hist := &historypb.History{Events: events}
	r := worker.NewWorkflowReplayer()
	hooks, enabled := hook.Defaults()
	r.RegisterWorkflowWithOptions(workflows.Agent{Config: workflows.Config{Hooks: hooks, DefaultHooks: enabled}}.Run,
		workflow.RegisterOptions{Name: signals.AgentWorkflow})
	require.NoError(t, r.ReplayWorkflowHistory(nil, hist))

	projected, err := projection.FromHistory(events)
	require.NoError(t, err)
	final, err := h.Log(ctx) // answered by replay on a closed workflow
	require.NoError(t, err)
	requireSameLog(t, final, projected)

	record(t, "scenario", events)
}

// record writes a history into the replay corpus when -record-histories is
// set; recorded files are kept across releases, so old histories keep
// replaying against new code.
func record(t *testing.T, name string, events []*historypb.HistoryEvent) {
	if !*recordHistories {
		return
	}
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(&historypb.History{Events: events})
	require.NoError(t, err)
	path := filepath.Join("..", "workflows", "testdata", "histories", *recordPrefix+name+".json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, b, 0o644))
}
