package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// The replay corpus: each scenario drives a real server through a part of
// the loop's rules, proves its history replays against the workflow code
// and projects to the log the workflow holds, and (with -record-histories)
// joins workflows/testdata/histories, which CI replays on every change.

// requireReplaysAndProjects is the corpus check of one agent's single run.
func requireReplaysAndProjects(ctx context.Context, t *testing.T, e *env, h *agent.Handle, name string) []eventlog.Event {
	t.Helper()
	log, err := h.Log(ctx)
	require.NoError(t, err)
	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	requireReplays(t, e, history, workflow.Execution{ID: h.ID, RunID: h.RunID})
	projected, err := projection.FromHistory(history)
	require.NoError(t, err)
	requireSameLog(t, log, projected)
	record(t, e.prefix+name, history)
	return events(t, log)
}

// requireReplays replays one run's history with the workflow code and the
// hooks every worker runs (hook.Defaults).
func requireReplays(t *testing.T, e *env, history []*historypb.HistoryEvent, exec workflow.Execution) {
	t.Helper()
	r := worker.NewWorkflowReplayer()
	hooks, enabled := hook.Defaults()
	r.RegisterWorkflowWithOptions(workflows.Agent{Config: workflows.Config{Hooks: hooks, DefaultHooks: enabled}}.Run,
		workflow.RegisterOptions{Name: signals.AgentWorkflow})
	require.NoError(t, r.ReplayWorkflowHistoryWithOptions(nil, &historypb.History{Events: history},
		worker.ReplayWorkflowHistoryOptions{OriginalExecution: exec}))
}

func waitIdle(ctx context.Context, t *testing.T, h *agent.Handle) {
	t.Helper()
	_, err := h.WaitIdle(ctx)
	require.NoError(t, err)
}

// Cancel with and without the inbox, during a tool call, then dispose
// during one: every turn closes canceled with its dangling call answered,
// and the disposed agent's pending work is discarded.
func TestCorpusCancelAndDispose(t *testing.T) { inBothModes(t, corpusCancelAndDispose) }

func corpusCancelAndDispose(t *testing.T, e *env) {
	g := newGate(t)
	e.startWorker(g.tool(), echoTool())
	ctx := ctxT(t, time.Minute)
	h := startGated(t, ctx, e, g, "cancel-and-dispose")

	_, err := h.Steer(ctx, "/say steered")
	require.NoError(t, err)
	require.NoError(t, h.Cancel(ctx, "keep going later", true))
	waitIdle(ctx, t, h) // the kept steer opened turn 2 and answered

	_, err = h.Followup(ctx, "/tool gate {}")
	require.NoError(t, err)
	g.waitStarted(t, ctx)
	_, err = h.Inject(ctx, "discard me")
	require.NoError(t, err)
	require.NoError(t, h.Cancel(ctx, "drop everything", false))
	waitIdle(ctx, t, h)
	_, err = h.Followup(ctx, "/say the scripted model needs an answer to close the canceled exchange")
	require.NoError(t, err)
	waitIdle(ctx, t, h)

	_, err = h.Followup(ctx, "/tool gate {}")
	require.NoError(t, err)
	g.waitStarted(t, ctx)
	_, err = h.Followup(ctx, "/say never")
	require.NoError(t, err)
	require.NoError(t, h.Dispose(ctx, "session over"))

	evs := requireReplaysAndProjects(ctx, t, e, h, "cancel-and-dispose")
	var reasons []eventlog.EndReason
	for _, end := range ofType[eventlog.TurnEnd](evs) {
		reasons = append(reasons, end.Reason)
	}
	require.Equal(t, []eventlog.EndReason{eventlog.EndCanceled, eventlog.EndCompleted, eventlog.EndCanceled,
		eventlog.EndCompleted, eventlog.EndCanceled}, reasons)
	for _, r := range ofType[eventlog.ToolResult](evs) {
		require.Equal(t, eventlog.ToolCanceled, r.Outcome)
	}
	var discarded []eventlog.DiscardOutcome
	for _, d := range ofType[eventlog.InboxDiscarded](evs) {
		discarded = append(discarded, d.Outcome)
	}
	require.Equal(t, []eventlog.DiscardOutcome{eventlog.DiscardCanceled, eventlog.DiscardDisposed}, discarded)
	require.Equal(t, "session over", ofType[eventlog.AgentDisposing](evs)[0].Cause)
}

// Compaction from every trigger: pressure before a step, recovery from a
// context overflow (once it shrinks, once it cannot), and maintenance
// while idle.
func TestCorpusCompactionAndMaintenance(t *testing.T) { inBothModes(t, corpusCompactionAndMaintenance) }

func corpusCompactionAndMaintenance(t *testing.T, e *env) {
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	long := strings.Repeat("lorem ipsum ", 80)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "compaction", Options: signals.AgentOptions{Tools: []string{"echo"},
		Compaction: &signals.Compaction{Window: 600, KeepRecent: 2, PruneOver: 400}}, First: `/tool echo {"text":"` + long + `"}`})
	require.NoError(t, err)
	for _, m := range []string{"/say " + long, "/say pressure now", "/fail context_overflow"} {
		waitIdle(ctx, t, h)
		_, err = h.Followup(ctx, m)
		require.NoError(t, err)
	}
	waitIdle(ctx, t, h)
	_, err = h.Followup(ctx, "/say "+long)
	require.NoError(t, err)
	waitIdle(ctx, t, h)
	m, err := h.RunMaintenance(ctx, signals.TaskCompact)
	require.NoError(t, err)
	require.LessOrEqual(t, m.After, m.Before)

	evs := requireReplaysAndProjects(ctx, t, e, h, "compaction")
	require.NotEmpty(t, ofType[eventlog.ContextPruned](evs))
	require.GreaterOrEqual(t, len(ofType[eventlog.ContextCompacted](evs)), 2)
	require.NotEmpty(t, ofType[eventlog.MaintenanceDone](evs))
	var retries int
	for _, s := range ofType[eventlog.TurnStart](evs) {
		if s.RetryOf > 0 {
			retries++
		}
	}
	require.Equal(t, 1, retries, "an overflow is retried once after compaction, then stands")
	require.NoError(t, h.Dispose(ctx, ""))
}

// Budgets: the turn-budget hook's step limit and a token budget.
func TestCorpusBudgets(t *testing.T) { inBothModes(t, corpusBudgets) }

func corpusBudgets(t *testing.T, e *env) {
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "budgets", Options: signals.AgentOptions{Tools: []string{"echo"},
		MaxSteps: 3, Budget: &signals.Budget{MaxTokens: 2000}}, First: `/repeat 5 echo {"text":"again"}`})
	require.NoError(t, err)
	for {
		waitIdle(ctx, t, h)
		st, err := h.Status(ctx)
		require.NoError(t, err)
		if st.Turn >= 8 {
			break
		}
		_, err = h.Followup(ctx, `/tool echo {"text":"spend"}`)
		require.NoError(t, err)
	}
	evs := requireReplaysAndProjects(ctx, t, e, h, "budgets")
	ends := ofType[eventlog.TurnEnd](evs)
	require.Equal(t, eventlog.EndBlocked, ends[0].Reason)
	require.Equal(t, "step limit 3 reached in turn 1", ends[0].Error)
	require.Equal(t, eventlog.EndBudget, ends[len(ends)-1].Reason)
	require.NoError(t, h.Dispose(ctx, ""))
}

// A turn that continues as new between two steps (a small per-run event
// limit stands in for Temporal's suggestion at 4,096 events).
func TestCorpusContinueAsNewBetweenSteps(t *testing.T) {
	inBothModes(t, corpusContinueAsNewBetweenSteps)
}

func corpusContinueAsNewBetweenSteps(t *testing.T, e *env) {
	e.cfg.MaxRunEvents = 60
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "mid-turn", Options: signals.AgentOptions{Tools: []string{"echo"}},
		First: `/repeat 8 echo {"text":"step"}`})
	require.NoError(t, err)
	waitIdle(ctx, t, h)
	evs := requireProjects(ctx, t, e, h)
	require.Len(t, ofType[eventlog.TurnStart](evs), 1)
	require.Len(t, ofType[eventlog.ToolResult](evs), 8)
	runs, err := projection.FetchChain(ctx, e.c, h.ID)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(runs), 2, "the turn spans runs")
	record(t, e.prefix+"mid-turn-first-run", runs[0])
	record(t, e.prefix+"mid-turn-second-run", runs[1])
}

// Tool arguments both ways: small ones travel in the tool activity's
// input, larger ones (over signals.MaxInlineArguments) are read from the
// log, alone and in one step beside an inline call; each tool gets its own
// arguments either way.
func TestCorpusToolArgumentsInlineAndFromTheLog(t *testing.T) {
	inBothModes(t, corpusToolArgumentsInlineAndFromTheLog)
}

func corpusToolArgumentsInlineAndFromTheLog(t *testing.T, e *env) {
	e.startWorker(echoTool(), lenTool())
	ctx := ctxT(t, time.Minute)
	large := strings.Repeat("x", 2*signals.MaxInlineArguments)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "tool-arguments",
		Options: signals.AgentOptions{Tools: []string{"echo", "len"}}, First: `/tool echo {"text":"small"}`})
	require.NoError(t, err)
	waitIdle(ctx, t, h)
	for _, m := range []string{`/tool len {"text":"` + large + `"}`, `/tool echo {"text":"a"}` + "\n" + `/tool len {"text":"` + large + `"}`} {
		_, err = h.Followup(ctx, m)
		require.NoError(t, err)
		waitIdle(ctx, t, h)
	}
	evs := requireReplaysAndProjects(ctx, t, e, h, "tool-arguments")
	var contents []string
	for _, r := range ofType[eventlog.ToolResult](evs) {
		contents = append(contents, r.Content)
	}
	n := fmt.Sprint(len(large))
	require.Equal(t, []string{"echo: small", n, "echo: a", n}, contents)

	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	var inline []bool
	for _, ev := range history {
		a := ev.GetActivityTaskScheduledEventAttributes()
		if a == nil || a.GetActivityType().GetName() != signals.ToolActivity {
			continue
		}
		var in signals.ToolInput
		require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(a.GetInput(), &in))
		inline = append(inline, in.Arguments != nil)
		require.Equal(t, in.Arguments == nil, in.AssistantSeq > 0, "a call read from the log names its message")
	}
	require.Equal(t, []bool{true, false, true, false}, inline)
}
