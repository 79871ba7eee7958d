package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

var tools = signals.AgentOptions{Tools: []string{"fast", "slow", "mid"}}

func TestFollowupOpensTurnRunsToolsAndAnswers(t *testing.T) {
	h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": calls("fast")}))
	h.tool("fast", time.Second)
	evs := h.run(signals.AgentOptions{SystemPrompt: "sys", Tools: []string{"fast"}}, "hello", time.Hour)
	require.Equal(t, []eventlog.Type{
		eventlog.TypeInboxInserted,
		eventlog.TypeStatus, eventlog.TypeTurnStart, eventlog.TypeInboxClaimed,
		eventlog.TypeStepStart, eventlog.TypeSystemMessage, eventlog.TypeUserMessage,
		eventlog.TypeRequestHeader, eventlog.TypeRequestContext, eventlog.TypeAssistantMessage,
		eventlog.TypeToolCall, eventlog.TypeToolResult, eventlog.TypeStepEnd,
		eventlog.TypeStepStart, eventlog.TypeRequestContext, eventlog.TypeAssistantMessage, eventlog.TypeStepEnd,
		eventlog.TypeTurnEnd, eventlog.TypeStatus, eventlog.TypeAgentDisposing,
	}, types(evs))
	require.Equal(t, eventlog.EndCompleted, only[eventlog.TurnEnd](evs)[0].Reason)
	require.Equal(t, "fast ok c0", only[eventlog.ToolResult](evs)[0].Content)
	require.True(t, strings.HasSuffix(only[eventlog.ToolCall](evs)[0].IdempotencyKey, "/1/1/c0"),
		"idempotency key is agent/turn/step/call")
}

func TestToolResultsCommittedInModelOrderWhenToolsFinishOutOfOrder(t *testing.T) {
	h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": calls("slow", "fast", "mid")}))
	h.tool("slow", 3*time.Minute)
	h.tool("fast", time.Second)
	h.tool("mid", time.Minute)
	evs := h.run(tools, "go", time.Hour)
	var order []string
	for _, r := range only[eventlog.ToolResult](evs) {
		order = append(order, r.Name)
	}
	require.Equal(t, []string{"slow", "fast", "mid"}, order)
}

func TestSteerDuringStepEntersAtNextStepBoundary(t *testing.T) {
	h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": calls("slow")}))
	h.tool("slow", 10*time.Minute)
	h.signal(time.Minute, signals.SteerSignal.Name, signals.Message{ID: "s1", Content: "turn left"})
	evs := h.run(tools, "go", time.Hour)

	steps := only[eventlog.StepStart](evs)
	require.Len(t, steps, 2, "the steer rides the step the tool call needed anyway")
	users := only[eventlog.UserMessage](evs)
	require.Equal(t, []eventlog.MessageID{"m0", "s1"}, []eventlog.MessageID{users[0].MessageID, users[1].MessageID})
	// The steer was claimed after the tool result, before step 2.
	claimAt := indexOf(evs, func(e eventlog.Event) bool { c, ok := e.(eventlog.InboxClaimed); return ok && c.MessageID == "s1" })
	resultAt := indexOf(evs, func(e eventlog.Event) bool { _, ok := e.(eventlog.ToolResult); return ok })
	require.Greater(t, claimAt, resultAt)
	require.Len(t, only[eventlog.TurnStart](evs), 1)
}

func TestSteerAfterNaturalStopTakesAnotherStep(t *testing.T) {
	h := newHarness(t, byStep(nil), time.Minute)
	// A steer arriving while step 1's model call runs forces step 2.
	h.signal(30*time.Second, signals.SteerSignal.Name, signals.Message{ID: "s1", Content: "and also"})
	evs := h.run(tools, "go", time.Hour)
	require.Len(t, only[eventlog.TurnStart](evs), 1)
	require.Len(t, only[eventlog.StepStart](evs), 2)
}

func TestInjectDoesNotWakeAnIdleAgent(t *testing.T) {
	h := newHarness(t, byStep(nil))
	h.signal(time.Minute, signals.InjectSignal.Name, signals.Message{ID: "i1", Content: "context"})
	var waited bool
	h.at(2*time.Minute, func() {
		v, err := h.env.QueryWorkflow(signals.StatusQuery.Name)
		require.NoError(t, err)
		var st signals.StatusView
		require.NoError(t, v.Get(&st))
		require.Equal(t, eventlog.StatusIdle, st.Status)
		require.Equal(t, 0, st.Turn)
		require.Len(t, st.NextStep, 1)
		waited = true
	})
	h.signal(3*time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "question"})
	evs := h.run(tools, "", time.Hour)
	require.True(t, waited)
	users := only[eventlog.UserMessage](evs)
	require.Equal(t, []eventlog.MessageID{"i1", "f1"}, []eventlog.MessageID{users[0].MessageID, users[1].MessageID},
		"the injected context enters before the prompt of the turn that claims both")
	require.Len(t, only[eventlog.TurnStart](evs), 1)
}

func TestCancelAbortsTurnGivesDanglingCallsCanceledResultsAndClearsInbox(t *testing.T) {
	h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": calls("fast", "slow")}))
	h.tool("fast", time.Second)
	h.tool("slow", time.Hour)
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "later"})
	h.signal(2*time.Minute, signals.CancelSignal.Name, signals.Cancel{Cause: "user stop"})
	evs := h.run(tools, "go", 3*time.Hour)

	results := only[eventlog.ToolResult](evs)
	require.Len(t, results, 2)
	require.False(t, results[0].IsError)
	require.True(t, results[1].IsError)
	require.Contains(t, results[1].Content, "user stop")
	ends := only[eventlog.TurnEnd](evs)
	require.Len(t, ends, 1)
	require.Equal(t, eventlog.EndCanceled, ends[0].Reason)
	work := eventlog.ConsumedWork(evs)
	require.Equal(t, eventlog.ProgressDiscarded, work["f1"].Progress)
	require.Equal(t, eventlog.DiscardCanceled, work["f1"].Discard)
	require.Equal(t, eventlog.EndCanceled, work["m0"].TurnEnd)
}

func TestCancelWithKeepInboxKeepsPendingMessagesForTheNextTurn(t *testing.T) {
	h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": calls("slow")}))
	h.tool("slow", time.Hour)
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "later"})
	h.signal(2*time.Minute, signals.CancelSignal.Name, signals.Cancel{Cause: "stop", KeepInbox: true})
	evs := h.run(tools, "go", 3*time.Hour)

	ends := only[eventlog.TurnEnd](evs)
	require.Len(t, ends, 2)
	require.Equal(t, eventlog.EndCanceled, ends[0].Reason)
	require.Equal(t, eventlog.EndCompleted, ends[1].Reason)
	work := eventlog.ConsumedWork(evs)
	require.Equal(t, eventlog.ProgressDone, work["f1"].Progress)
	require.Equal(t, 2, work["f1"].Turn)
}

func TestCancelDuringModelCallRecordsCanceledAttempt(t *testing.T) {
	h := newHarness(t, byStep(nil), 10*time.Minute)
	h.signal(time.Minute, signals.CancelSignal.Name, signals.Cancel{Cause: "stop"})
	evs := h.run(tools, "go", time.Hour)
	attempts := only[eventlog.AssistantAttempt](evs)
	require.Len(t, attempts, 1)
	require.Equal(t, eventlog.FailureCanceled, attempts[0].Failure.Kind)
	require.Equal(t, eventlog.EndCanceled, only[eventlog.TurnEnd](evs)[0].Reason)
}

func indexOf(evs []eventlog.Event, match func(eventlog.Event) bool) int {
	for i, e := range evs {
		if match(e) {
			return i
		}
	}
	return -1
}
