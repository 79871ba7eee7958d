package workflows

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

func TestConsecutiveTurnsShareOneRunningInterval(t *testing.T) {
	h := newHarness(t, byStep(nil), time.Minute)
	h.signal(10*time.Second, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "second"})
	h.signal(20*time.Second, signals.FollowupSignal.Name, signals.Message{ID: "f2", Content: "third"})
	h.signal(time.Hour, signals.FollowupSignal.Name, signals.Message{ID: "f3", Content: "after a pause"})
	evs := h.run(tools, "first", 2*time.Hour)

	var statuses []eventlog.Status
	for _, s := range only[eventlog.StatusChanged](evs) {
		statuses = append(statuses, s.Status)
	}
	require.Len(t, only[eventlog.TurnStart](evs), 4)
	require.Equal(t, []eventlog.Status{
		eventlog.StatusRunning, eventlog.StatusIdle, // turns 1-3 back to back
		eventlog.StatusRunning, eventlog.StatusIdle, // turn 4
	}, statuses)
}

func TestUpdateValidatorsRejectBadInputBeforeHistory(t *testing.T) {
	h := newHarness(t, byStep(nil))
	results := map[string]*error{}
	send := func(d time.Duration, name, id string, v any) {
		var err error = errors.New("no outcome")
		results[id] = &err
		h.update(d, name, id, v, &err)
	}
	send(time.Minute, signals.FollowupUpdate.Name, "empty", signals.Message{ID: "empty", Content: "  \n"})
	send(time.Minute, signals.SteerUpdate.Name, "huge", signals.Message{ID: "huge", Content: strings.Repeat("x", signals.MaxMessageBytes+1)})
	send(time.Minute, signals.InjectUpdate.Name, "bad-id", signals.Message{ID: "has space", Content: "x"})
	send(time.Minute, signals.SendUpdate.Name, "bad-list", signals.Send{Message: signals.Message{ID: "bad-list", Content: "x"}, List: "elsewhere"})
	send(2*time.Minute, signals.FollowupUpdate.Name, "ok", signals.Message{ID: "ok", Content: "fine"})
	send(3*time.Minute, signals.FollowupUpdate.Name, "dup", signals.Message{ID: "ok", Content: "fine"})
	send(3*time.Minute, signals.FollowupUpdate.Name, "reused", signals.Message{ID: "ok", Content: "again"})
	evs := h.run(tools, "", time.Hour)

	for _, id := range []string{"empty", "huge", "bad-id", "bad-list", "dup", "reused"} {
		var app *temporal.ApplicationError
		require.ErrorAs(t, *results[id], &app, id)
	}
	require.NoError(t, *results["ok"])
	var dup *temporal.ApplicationError
	require.ErrorAs(t, *results["dup"], &dup)
	require.Equal(t, signals.RejectDuplicate, dup.Type(), "the same message again")
	var reused *temporal.ApplicationError
	require.ErrorAs(t, *results["reused"], &reused)
	require.Equal(t, signals.RejectReused, reused.Type(), "another message under a used ID")

	inserted := only[eventlog.InboxInserted](evs)
	require.Len(t, inserted, 1, "rejected messages never reach the log")
	require.Equal(t, eventlog.MessageID("ok"), inserted[0].MessageID)
	require.Equal(t, "fine", inserted[0].Content)
}

func TestSignalledBadMessageIsLeftOutOfTheLog(t *testing.T) {
	h := newHarness(t, byStep(nil))
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "e", Content: ""})
	evs := h.run(tools, "", time.Hour)
	require.Empty(t, only[eventlog.InboxInserted](evs))
}

func TestDisposeDiscardsPendingMessagesAndCompletes(t *testing.T) {
	h := newHarness(t, byStep(nil))
	h.signal(time.Minute, signals.InjectSignal.Name, signals.Message{ID: "i1", Content: "never used"})
	var late error
	h.update(2*time.Hour, signals.FollowupUpdate.Name, "late", signals.Message{ID: "late", Content: "too late"}, &late)
	evs := h.run(tools, "", time.Hour)

	work := eventlog.ConsumedWork(evs)
	require.Equal(t, eventlog.ProgressDiscarded, work["i1"].Progress)
	require.Equal(t, eventlog.DiscardDisposed, work["i1"].Discard)
	var res signals.AgentResult
	require.NoError(t, h.env.GetWorkflowResult(&res))
	require.EqualValues(t, len(evs), res.LogLen)
}

func TestModelFailureClosesTurnAsFailedWithRecordedAttempt(t *testing.T) {
	h := newHarness(t, func(in signals.ModelInput) (signals.ModelOutput, error) {
		if in.Call.Turn == 1 {
			f := eventlog.Failure{Kind: eventlog.FailureAuth, Message: "invalid api key", StatusCode: 401}
			return signals.ModelOutput{}, temporal.NewApplicationErrorWithOptions(f.Message, string(f.Kind),
				temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{f}})
		}
		return answer("recovered"), nil
	})
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "again"})
	evs := h.run(tools, "go", time.Hour)

	attempts := only[eventlog.AssistantAttempt](evs)
	require.Len(t, attempts, 1)
	require.Equal(t, eventlog.FailureAuth, attempts[0].Failure.Kind)
	require.Equal(t, 401, attempts[0].Failure.StatusCode)
	ends := only[eventlog.TurnEnd](evs)
	require.Equal(t, eventlog.EndFailed, ends[0].Reason)
	require.Contains(t, ends[0].Error, "invalid api key")
	require.Equal(t, eventlog.EndCompleted, ends[1].Reason, "the agent takes the next turn")
}

func TestToolNotEnabledForAgentGetsErrorResultWithoutRunning(t *testing.T) {
	h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": calls("rm_rf")}))
	evs := h.run(tools, "go", time.Hour)
	results := only[eventlog.ToolResult](evs)
	require.Len(t, results, 1)
	require.True(t, results[0].IsError)
	require.Contains(t, results[0].Content, `"rm_rf" is not available`)
}

func TestTheDefaultTurnBudgetHookBoundsStepsAndCanBeRemoved(t *testing.T) {
	hooks, enabled := hook.Defaults()
	for _, on := range []bool{true, false} {
		h := newHarnessWith(t, Config{Hooks: hooks, DefaultHooks: enabled}, func(in signals.ModelInput) (signals.ModelOutput, error) {
			if in.Call.Step > 5 {
				return answer("enough"), nil
			}
			return calls("fast"), nil
		})
		h.tool("fast", time.Second)
		opts := tools
		opts.MaxSteps = 3
		if !on {
			opts.Hooks = []string{hook.RetryName} // no turn-budget: the loop has no built-in limit
		}
		evs := h.run(opts, "loop forever", time.Hour)
		end := only[eventlog.TurnEnd](evs)[0]
		if on {
			require.Len(t, only[eventlog.StepStart](evs), 3)
			require.Equal(t, eventlog.EndBlocked, end.Reason)
			require.Equal(t, "step limit 3 reached in turn 1", end.Error)
		} else {
			require.Len(t, only[eventlog.StepStart](evs), 6)
			require.Equal(t, eventlog.EndCompleted, end.Reason)
		}
	}
}

func TestConcludingToolResultEndsTheToolLoop(t *testing.T) {
	h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": calls("fast")}))
	h.concludingTool("fast")
	evs := h.run(tools, "go", time.Hour)
	require.Len(t, only[eventlog.StepStart](evs), 1, "no step after a concluding result")
	require.Equal(t, eventlog.EndConcluded, only[eventlog.TurnEnd](evs)[0].Reason)
}
