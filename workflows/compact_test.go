package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

func longAnswer(in signals.ModelInput) (signals.ModelOutput, error) {
	return answer(strings.Repeat("word ", 80)), nil // ~100 tokens
}

func compacting(window int) signals.AgentOptions {
	opts := tools
	opts.Compaction = &signals.Compaction{Window: window, KeepRecent: 2}
	return opts
}

func TestPressureCheckCompactsTheContextBeforeTheStep(t *testing.T) {
	h := newHarnessWith(t, withHooks(hook.Compaction()), longAnswer)
	for i, d := range []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute} {
		h.signal(d, signals.FollowupSignal.Name, signals.Message{ID: eventlog.MessageID("f" + string(rune('1'+i))), Content: "more"})
	}
	evs := h.run(compacting(250), "go", time.Hour)

	compacted := only[eventlog.ContextCompacted](evs)
	require.NotEmpty(t, compacted, "the context passed 80% of 250 tokens")
	require.Equal(t, summaryText, compacted[0].Text)
	i := indexOf(evs, func(e eventlog.Event) bool { _, ok := e.(eventlog.ContextCompacted); return ok })
	_, beforeStep := evs[i+1].(eventlog.StepStart)
	require.True(t, beforeStep, "compaction runs at pre-step, before the step opens")
	conv := eventlog.ConversationOf(evs)
	require.Equal(t, eventlog.SummaryPrefix+summaryText, conv[0].Content, "the derived context uses the summary from then on")
}

func TestCompactionPrunesOldToolResultsFirst(t *testing.T) {
	big := strings.Repeat("x", 3000)
	h := newHarnessWith(t, withHooks(hook.Compaction()), byStep(map[string]signals.ModelOutput{"1.1": calls("fast")}))
	h.bigTool("fast", big)
	for i, d := range []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute} {
		h.signal(d, signals.FollowupSignal.Name, signals.Message{ID: eventlog.MessageID("f" + string(rune('1'+i))), Content: "more"})
	}
	evs := h.run(compacting(600), "go", time.Hour)
	pruned := only[eventlog.ContextPruned](evs)
	require.NotEmpty(t, pruned)
	require.Equal(t, []string{"c0"}, pruned[0].CallIDs)
	require.Equal(t, big, only[eventlog.ToolResult](evs)[0].Content, "the log keeps the result")
}

func TestContextOverflowIsRecoveredOnlyWhenCompactionReducedTheContext(t *testing.T) {
	failTurn := 3
	h := newHarnessWith(t, withHooks(hook.Compaction()), func(in signals.ModelInput) (signals.ModelOutput, error) {
		if in.Call.Turn == failTurn || in.Call.Turn == 1 && failTurn == 1 {
			return signals.ModelOutput{}, failWith(eventlog.FailureContextOverflow, 0)
		}
		return longAnswer(in)
	})
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "two"})
	h.signal(2*time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f2", Content: "three"})
	evs := h.run(compacting(0), "one", time.Hour)
	starts := only[eventlog.TurnStart](evs)
	require.Equal(t, eventlog.TurnStart{Turn: 4, RetryOf: 3}, starts[3], "reduced: a retry turn")
	require.Len(t, only[eventlog.ContextCompacted](evs), 1)

	failTurn = 1
	h = newHarnessWith(t, withHooks(hook.Compaction()), func(in signals.ModelInput) (signals.ModelOutput, error) {
		return signals.ModelOutput{}, failWith(eventlog.FailureContextOverflow, 0)
	})
	evs = h.run(compacting(0), "one", time.Hour)
	require.Len(t, only[eventlog.TurnStart](evs), 1, "nothing to compact: the original error stands")
	require.Equal(t, eventlog.EndFailed, only[eventlog.TurnEnd](evs)[0].Reason)
	require.Contains(t, only[eventlog.TurnEnd](evs)[0].Error, "context_overflow")
}

func TestMaintenanceRunsOnlyWhileIdleAndAMessageWaitsForIt(t *testing.T) {
	h := newHarnessWith(t, withHooks(hook.Compaction()), longAnswer, time.Minute)
	for i, d := range []time.Duration{2 * time.Minute, 4 * time.Minute} {
		h.signal(d, signals.FollowupSignal.Name, signals.Message{ID: eventlog.MessageID("f" + string(rune('1'+i))), Content: "more"})
	}
	var result signals.Maintained
	var maintErr error = errNoOutcome
	h.at(6*time.Minute+30*time.Second, func() { // during turn 3's model call
		h.env.UpdateWorkflow(signals.MaintainUpdate.Name, "m1", &testsuite.TestUpdateCallback{
			OnAccept: func() {}, OnReject: func(err error) { maintErr = err },
			OnComplete: func(v any, err error) {
				maintErr = err
				if err == nil {
					result = v.(signals.Maintained)
				}
			},
		}, signals.Maintain{Task: signals.TaskCompact})
	})
	h.signal(7*time.Minute+30*time.Second, signals.FollowupSignal.Name, signals.Message{ID: "during", Content: "arrives during maintenance"})
	evs := h.run(compacting(0), "go", time.Hour)

	require.NoError(t, maintErr)
	require.Less(t, result.After, result.Before)
	c := indexOf(evs, func(e eventlog.Event) bool { _, ok := e.(eventlog.ContextCompacted); return ok })
	require.Positive(t, c)
	end3 := indexOf(evs, func(e eventlog.Event) bool { e3, ok := e.(eventlog.TurnEnd); return ok && e3.Turn == 3 })
	start4 := indexOf(evs, func(e eventlog.Event) bool { s, ok := e.(eventlog.TurnStart); return ok && s.Turn == 4 })
	require.Greater(t, c, end3, "maintenance waits for the turn to end")
	require.Greater(t, start4, c, "the message that arrived meanwhile waits for maintenance")
}

func TestContinueAsNewCompactsASeedThatWouldBeTooLarge(t *testing.T) {
	cfg := withHooks(hook.Compaction())
	cfg.MaxRunTurns, cfg.MaxSeedBytes = 3, 600
	h := newHarnessWith(t, cfg, longAnswer)
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "two"})
	h.signal(2*time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f2", Content: "three"})
	h.env.ExecuteWorkflow(signals.AgentWorkflow, signals.AgentInput{Options: compacting(0), First: &signals.Message{ID: "m0", Content: "one"}})
	require.True(t, workflow.IsContinueAsNewError(h.env.GetWorkflowError()))
	evs := h.log()
	require.Len(t, only[eventlog.TurnStart](evs), 3)
	compacted := only[eventlog.ContextCompacted](evs)
	require.Len(t, compacted, 1, "compacted before the seed was made")
	_, last := evs[len(evs)-1].(eventlog.ContextCompacted)
	require.True(t, last)
}

func TestContinueAsNewWaitsWhilePendingMessagesWouldNotFitInASeed(t *testing.T) {
	cfg := Config{MaxRunTurns: 1, MaxSeedBytes: 10}
	h := newHarnessWith(t, cfg, byStep(nil), time.Minute)
	h.signal(30*time.Second, signals.FollowupSignal.Name, signals.Message{ID: "big", Content: "twenty bytes of text"})
	h.env.ExecuteWorkflow(signals.AgentWorkflow, signals.AgentInput{Options: tools, First: &signals.Message{ID: "m0", Content: "one"}})
	require.True(t, workflow.IsContinueAsNewError(h.env.GetWorkflowError()))
	evs := h.log()
	require.Len(t, only[eventlog.TurnStart](evs), 2, "the large pending message was answered before the switch")
	require.Equal(t, eventlog.ProgressDone, eventlog.ConsumedWork(evs)["big"].Progress)
}
