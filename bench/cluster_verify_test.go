package bench

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

// One healthy turn of the workload, as the session log records it.
func workloadTurn(turn int, content, callID string) []eventlog.Event {
	return []eventlog.Event{
		eventlog.TurnStart{Turn: turn},
		eventlog.UserMessage{Content: content},
		eventlog.AssistantMessage{FinishReason: eventlog.FinishToolCalls, ToolCalls: []eventlog.ToolCallRequest{{ID: callID, Name: "fetch"}}},
		eventlog.ToolCall{CallID: callID, Name: "fetch"},
		eventlog.ToolResult{CallID: callID, Name: "fetch", Content: "2 KB"},
		eventlog.AssistantMessage{Text: "answer", FinishReason: eventlog.FinishStop},
		eventlog.TurnEnd{Turn: turn, Reason: eventlog.EndCompleted},
	}
}

func TestAnsweredOnceAcceptsRetryTurnsAndCatchesDuplicatesAndLosses(t *testing.T) {
	two := append(workloadTurn(1, "turn 1", "c1"), workloadTurn(2, "turn 2", "c2")...)
	retried := append(workloadTurn(1, "turn 1", "c1"),
		eventlog.TurnStart{Turn: 2}, eventlog.UserMessage{Content: "turn 2"},
		eventlog.AssistantAttempt{Failure: eventlog.Failure{Kind: eventlog.FailureTimeout}},
		eventlog.TurnEnd{Turn: 2, Reason: eventlog.EndFailed},
		eventlog.TurnStart{Turn: 3, RetryOf: 2},
		eventlog.AssistantMessage{FinishReason: eventlog.FinishToolCalls, ToolCalls: []eventlog.ToolCallRequest{{ID: "c2", Name: "fetch"}}},
		eventlog.ToolCall{CallID: "c2", Name: "fetch"}, eventlog.ToolResult{CallID: "c2", Name: "fetch", Content: "2 KB"},
		eventlog.AssistantMessage{Text: "answer", FinishReason: eventlog.FinishStop},
		eventlog.TurnEnd{Turn: 3, Reason: eventlog.EndCompleted})
	for name, tc := range map[string]struct {
		events []eventlog.Event
		ok     bool
	}{
		"two healthy turns":         {two, true},
		"a retry turn answers":      {retried, true},
		"a turn missing":            {two[:7], false},
		"an answer twice":           {append(two[:13:13], eventlog.AssistantMessage{Text: "again"}, two[13]), false},
		"a tool run twice":          {append(two[:11:11], append([]eventlog.Event{eventlog.ToolCall{CallID: "c2"}}, two[11:]...)...), false},
		"a failed turn not retried": {append(two[:13:13], eventlog.TurnEnd{Turn: 2, Reason: eventlog.EndFailed}), false},
		"a tool result made up":     {append(two[:11:11], append([]eventlog.Event{eventlog.ToolResult{CallID: "c2", Outcome: eventlog.ToolFailed}}, two[12:]...)...), false},
	} {
		t.Run(name, func(t *testing.T) {
			err := answeredOnce(tc.events, 2)
			if tc.ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
}
