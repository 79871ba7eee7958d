package workflows

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// Every history recorded in testdata/histories (by the end-to-end suite, see
// e2e/replay_test.go) must replay against the current workflow code: a change
// to command order that is not guarded fails here. Replay must also rebuild
// the very session log the history journaled, so an agent running when its
// worker is upgraded keeps one consistent log: its projection from history
// equals what the upgraded loop holds.
func TestRecordedHistoriesReplayToTheLogTheyJournaled(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the replay corpus is missing")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { replayToTheJournaledLog(t, f) })
	}
}

// replayToTheJournaledLog replays the history in file f with this build's
// workflow and requires the log it journaled, rebuilt and published whole.
func replayToTheJournaledLog(t *testing.T, f string) {
	hooks, enabled := hook.Defaults() // what every worker runs
	var replayed *loop.Loop
	published := &publishedLog{}
	agent := Agent{Config: Config{Hooks: hooks, DefaultHooks: enabled, Snapshots: published},
		observe: func(l *loop.Loop) { replayed = l }}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(agent.Run, workflow.RegisterOptions{Name: signals.AgentWorkflow})
	hist := readHistory(t, f)
	journaled, err := projection.FromHistory(hist.GetEvents())
	require.NoError(t, err)
	exec := workflow.Execution{ID: agentID(journaled), RunID: "replayed"}
	require.NoError(t, r.ReplayWorkflowHistoryWithOptions(nil, hist, worker.ReplayWorkflowHistoryOptions{OriginalExecution: exec}))
	require.NotNil(t, replayed)
	// A worker that replays the run (after a restart, an eviction)
	// publishes the log it rebuilds, whole, for its activities.
	require.Equal(t, wholeLog(replayed), published.events)
	log := replayed.Page(signals.LogRequest{Limit: signals.DefaultLogPage}).Events
	require.GreaterOrEqual(t, len(log), len(journaled))
	for i, want := range journaled {
		got := log[i]
		require.Equal(t, want.Seq, got.Seq)
		require.Equal(t, want.Type, got.Type, "seq %d", want.Seq)
		require.Equal(t, want.At, got.At, "seq %d", want.Seq)
		require.JSONEq(t, string(want.Data), string(got.Data), "seq %d %s", want.Seq, want.Type)
	}
}

// The corpus holds runs of the baseline (loop.Baseline) only. A run a
// pre-release build recorded, before the run config or under earlier
// rules, does not replay under rules it did not run by: its workflow task
// fails saying why, and the run waits for a build that follows them.
func TestAPreBaselineRunFailsItsWorkflowTaskSayingWhy(t *testing.T) {
	hooks, enabled := hook.Defaults()
	for file, want := range map[string]string{
		"no-run-config-scenario.json": runConfigChange,
		"rules2-wait-restart.json":    loop.ErrUnknownRules.Error() + ": the run config records rules 2",
	} {
		t.Run(file, func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			agent := Agent{Config: Config{Hooks: hooks, DefaultHooks: enabled}}
			r.RegisterWorkflowWithOptions(agent.Run, workflow.RegisterOptions{Name: signals.AgentWorkflow})
			err := r.ReplayWorkflowHistory(nil, readHistory(t, filepath.Join("testdata", "prebaseline", file)))
			require.ErrorContains(t, err, want)
		})
	}
}

// publishedLog keeps what a run publishes to its worker's Snapshots.
type publishedLog struct{ events []eventlog.Envelope }

func (p *publishedLog) Publish(_, _ string, page signals.LogPage) {
	p.events = append(p.events, page.Events...)
}

func (p *publishedLog) Forget(_, _ string) {}

// wholeLog reads l's log page by page, as an activity reads it.
func wholeLog(l *loop.Loop) []eventlog.Envelope {
	var out []eventlog.Envelope
	for from := int64(0); ; {
		page := l.Page(signals.LogRequest{From: from})
		out = append(out, page.Events...)
		if page.Next >= page.Len || len(page.Events) == 0 {
			return out
		}
		from = page.Next
	}
}

func readHistory(t *testing.T, path string) *historypb.History {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var h historypb.History
	require.NoError(t, temporalproto.CustomJSONUnmarshalOptions{}.Unmarshal(b, &h))
	return &h
}

// agentID is the workflow ID a log was recorded under, as its idempotency
// keys name it ("" when it has no tool call, where the ID does not show).
func agentID(log []eventlog.Envelope) string {
	for _, env := range log {
		e, err := eventlog.Decode(env)
		switch e := e.(type) {
		case eventlog.ToolCall:
			id, _, _ := strings.Cut(e.IdempotencyKey, "/")
			return id
		case eventlog.ChildStarted: // children's IDs name their parent
			return e.ChildID[:max(0, strings.LastIndex(e.ChildID, ".child-"))]
		}
		_ = err
	}
	return "replayed"
}

// A worker replays a run again whenever it evicted the run from its cache
// (or restarted): one Agent, one registration, the same process. Every
// recorded history replays a second time there as it did the first: no
// state of one execution survives into the next. The history is read
// afresh for each replay, as a worker fetches it from the server: the
// SDK's replayer merges the search attributes a run upserts into the
// history it was given (workflowInfo.SearchAttributes is the started
// event's), so a second replay of the same object would start from the
// attributes the first one ended with.
func TestRecordedHistoriesReplayAgainInTheSameWorker(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	require.NoError(t, err)
	hooks, enabled := hook.Defaults()
	agent := Agent{Config: Config{Hooks: hooks, DefaultHooks: enabled}}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(agent.Run, workflow.RegisterOptions{Name: signals.AgentWorkflow})
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			journaled, err := projection.FromHistory(readHistory(t, f).GetEvents())
			require.NoError(t, err)
			for i, run := range []string{"first", "again"} {
				exec := workflow.Execution{ID: agentID(journaled), RunID: run}
				err := r.ReplayWorkflowHistoryWithOptions(nil, readHistory(t, f), worker.ReplayWorkflowHistoryOptions{OriginalExecution: exec})
				require.NoError(t, err, "replay %d", i+1)
			}
		})
	}
}
