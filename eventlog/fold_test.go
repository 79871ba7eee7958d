package eventlog

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConversationFold(t *testing.T) {
	calls := []ToolCallRequest{{ID: "c1", Name: "t"}}
	cases := []struct {
		name string
		log  []Event
		want []Message
	}{
		{"empty", nil, []Message{}},
		{"system first, latest wins", []Event{
			SystemMessage{Content: "old"}, UserMessage{Content: "hi"}, SystemMessage{Content: "new"},
		}, []Message{{Role: RoleSystem, Content: "new"}, {Role: RoleUser, Content: "hi"}}},
		{"tool round trip", []Event{
			UserMessage{Content: "q"}, AssistantMessage{ToolCalls: calls}, ToolResult{CallID: "c1", Name: "t", Content: "r", IsError: true},
			AssistantMessage{Text: "a"},
		}, []Message{
			{Role: RoleUser, Content: "q"}, {Role: RoleAssistant, ToolCalls: calls},
			{Role: RoleTool, Content: "r", ToolCallID: "c1", Name: "t", IsError: true}, {Role: RoleAssistant, Content: "a"},
		}},
		{"empty assistant content stays out", []Event{
			UserMessage{Content: "q"}, AssistantMessage{FinishReason: FinishMaxTokens},
		}, []Message{{Role: RoleUser, Content: "q"}}},
		{"inbox and lifecycle events are not model-facing", []Event{
			InboxInserted{MessageID: "m", List: NextTurn, Content: "pending"}, TurnStart{Turn: 1}, StatusChanged{Status: StatusRunning},
			AssistantAttempt{Failure: Failure{Kind: FailureServer}},
		}, []Message{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, ConversationOf(tc.log))
		})
	}
}

func TestConsumedWorkFollowsEveryMessage(t *testing.T) {
	log := []Event{
		InboxInserted{MessageID: "a", List: NextTurn},
		InboxInserted{MessageID: "b", List: NextTurn},
		InboxInserted{MessageID: "c", List: NextStep},
		TurnStart{Turn: 1},
		InboxClaimed{MessageID: "a", List: NextTurn, Turn: 1},
		TurnEnd{Turn: 1, Reason: EndFailed},
		TurnStart{Turn: 2, RetryOf: 1}, // a retry turn reopens a's claim
		TurnEnd{Turn: 2, Reason: EndCompleted},
		InboxDiscarded{MessageID: "c", List: NextStep, Outcome: DiscardCanceled},
		TurnStart{Turn: 3},
		InboxClaimed{MessageID: "b", List: NextTurn, Turn: 3},
	}
	got := ConsumedWork(log)
	require.Equal(t, Outcome{List: NextTurn, Progress: ProgressDone, Turn: 2, TurnEnd: EndCompleted}, got["a"])
	require.Equal(t, Outcome{List: NextTurn, Progress: ProgressClaimed, Turn: 3}, got["b"])
	require.Equal(t, Outcome{List: NextStep, Progress: ProgressDiscarded, Discard: DiscardCanceled}, got["c"])
}

func TestStateRejectsInvalidTransitions(t *testing.T) {
	cases := []struct {
		name string
		log  []Event
	}{
		{"claim of a message never inserted", []Event{TurnStart{Turn: 1}, InboxClaimed{MessageID: "x", List: NextTurn, Turn: 1}}},
		{"claim outside a turn", []Event{InboxInserted{MessageID: "x", List: NextTurn}, InboxClaimed{MessageID: "x", List: NextTurn}}},
		{"duplicate insert", []Event{InboxInserted{MessageID: "x", List: NextTurn}, InboxInserted{MessageID: "x", List: NextStep}}},
		{"unknown list", []Event{InboxInserted{MessageID: "x", List: "later"}}},
		{"turn skips a number", []Event{TurnStart{Turn: 2}}},
		{"turn inside a turn", []Event{TurnStart{Turn: 1}, TurnStart{Turn: 2}}},
		{"step outside a turn", []Event{StepStart{Turn: 0, Step: 1}}},
		{"status repeated", []Event{StatusChanged{Status: StatusIdle}}},
		{"assistant outside a step", []Event{TurnStart{Turn: 1}, AssistantMessage{}}},
		{"result out of model order", []Event{
			TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1},
			AssistantMessage{ToolCalls: []ToolCallRequest{{ID: "a"}, {ID: "b"}}}, ToolResult{CallID: "b"},
		}},
		{"step ends with dangling calls", []Event{
			TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1}, AssistantMessage{ToolCalls: []ToolCallRequest{{ID: "a"}}}, StepEnd{Turn: 1, Step: 1},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewState(0)
			var err error
			for _, e := range tc.log {
				if err = s.Apply(e); err != nil {
					break
				}
			}
			require.ErrorIs(t, err, ErrInvalidTransition)
		})
	}
}

func TestStateFoldsInboxAndCounters(t *testing.T) {
	s := NewState(10)
	for _, e := range []Event{
		InboxInserted{MessageID: "a", List: NextTurn, Content: "A", Wake: true},
		InboxInserted{MessageID: "b", List: NextStep, Content: "B"},
		StatusChanged{Status: StatusRunning},
		TurnStart{Turn: 1},
		InboxClaimed{MessageID: "a", List: NextTurn, Turn: 1},
		StepStart{Turn: 1, Step: 1},
	} {
		require.NoError(t, s.Apply(e))
	}
	require.EqualValues(t, 16, s.Len)
	require.Equal(t, StatusRunning, s.Status)
	require.True(t, s.InTurn)
	require.True(t, s.InStep)
	require.Empty(t, s.Inbox.NextTurn)
	require.Equal(t, []Pending{{ID: "b", Content: "B"}}, s.Inbox.NextStep)
}

func TestInboxDueOnlyForFollowupsAndSteering(t *testing.T) {
	cases := []struct {
		name          string
		in            Inbox
		steering, due bool
	}{
		{"empty", Inbox{}, false, false},
		{"inject waits", Inbox{NextStep: []Pending{{ID: "i"}}}, false, false},
		{"steer wakes", Inbox{NextStep: []Pending{{ID: "i"}, {ID: "s", Wake: true}}}, true, true},
		{"followup wakes", Inbox{NextTurn: []Pending{{ID: "f", Wake: true}}}, false, true},
	}
	for _, tc := range cases {
		require.Equal(t, tc.steering, tc.in.Steering(), tc.name)
		require.Equal(t, tc.due, tc.in.Due(), tc.name)
	}
}

func TestStateFoldsTheControlEvents(t *testing.T) {
	s := NewState(0)
	for _, e := range []Event{
		ModelSelected{Selection: Selection{Provider: "p", Model: "m"}},
		MaintenanceQueued{Task: "compact"},
		MaintenanceDone{Task: "compact", Before: 9, After: 3},
		TurnStart{Turn: 1},
		TurnCanceling{Turn: 1, Cause: "stop"},
	} {
		require.NoError(t, s.Apply(e))
	}
	require.Equal(t, Selection{Provider: "p", Model: "m"}, s.Selection)
	require.Empty(t, s.Maintenance)
	require.Equal(t, "stop", s.Canceling)
	require.NoError(t, s.Apply(TurnEnd{Turn: 1, Reason: EndFailed}))
	require.Empty(t, s.Canceling, "a turn's cancel ends with it")
	require.NoError(t, s.Apply(TurnStart{Turn: 2, RetryOf: 1}))
	require.NoError(t, s.Apply(TurnEnd{Turn: 2, Reason: EndFailed}))
	require.NoError(t, s.Apply(TurnStart{Turn: 3, RetryOf: 2}))
	require.Equal(t, 2, s.RetryChain)
	require.NoError(t, s.Apply(TurnEnd{Turn: 3, Reason: EndCompleted}))
	require.NoError(t, s.Apply(TurnStart{Turn: 4}))
	require.Zero(t, s.RetryChain, "a new chain starts")
	require.NoError(t, s.Apply(AgentDisposing{Cause: "bye"}))
	require.True(t, s.Disposing)
}

func TestStateRefusesControlEventsThatCannotFollow(t *testing.T) {
	inTurn := func() State {
		s := NewState(0)
		require.NoError(t, s.Apply(TurnStart{Turn: 1}))
		return s
	}
	cases := []struct {
		name string
		s    State
		e    Event
	}{
		{"cancel outside a turn", NewState(0), TurnCanceling{Turn: 1, Cause: "x"}},
		{"cancel of another turn", inTurn(), TurnCanceling{Turn: 2, Cause: "x"}},
		{"cancel without a cause", inTurn(), TurnCanceling{Turn: 1}},
		{"maintenance done that was not queued", NewState(0), MaintenanceDone{Task: "compact"}},
		{"request header outside a step", inTurn(), RequestHeader{Model: "m"}},
		{"request context outside a step", inTurn(), RequestContext{Messages: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			require.ErrorIs(t, s.Apply(tc.e), ErrInvalidTransition)
		})
	}
	s := inTurn()
	require.NoError(t, s.Apply(TurnCanceling{Turn: 1, Cause: "first"}))
	require.ErrorIs(t, s.Apply(TurnCanceling{Turn: 1, Cause: "second"}), ErrInvalidTransition, "the first cause stands")
	d := NewState(0)
	require.NoError(t, d.Apply(AgentDisposing{}))
	require.ErrorIs(t, d.Apply(AgentDisposing{}), ErrInvalidTransition)
}

func TestStateFoldsChildrenDecisionsAndWaits(t *testing.T) {
	s := NewState(0)
	calls := []ToolCallRequest{{ID: "spawn"}, {ID: "mail"}, {ID: "nap"}}
	for _, e := range []Event{
		TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1}, AssistantMessage{ToolCalls: calls},
		ChildStarted{ChildID: "a.child-3", CallID: "spawn", Mode: ChildWait, Budget: ChildBudget{MaxTokens: 100}},
		DecisionRequested{CallID: "mail", Name: "send_email", Kind: NeedApproval},
		WaitStarted{CallID: "nap"},
	} {
		require.NoError(t, s.Apply(e))
	}
	require.Len(t, s.Children, 1)
	require.Len(t, s.Pending, 1)
	require.Len(t, s.Waits, 1)

	require.NoError(t, s.Apply(ChildSettled{ChildID: "a.child-3", Turn: 1, Reason: EndCompleted, Usage: Usage{InputTokens: 30, OutputTokens: 5}}))
	require.Equal(t, Usage{InputTokens: 30, OutputTokens: 5}, s.Usage, "a child's spending rolls up")
	require.Empty(t, s.Children[0].CallID, "an answered wait child holds no call")
	require.NoError(t, s.Apply(DecisionMade{CallID: "mail", Approved: true}))
	require.Empty(t, s.Pending)
	require.NoError(t, s.Apply(ToolResult{CallID: "spawn"}))
	require.NoError(t, s.Apply(ToolResult{CallID: "mail"}))
	require.NoError(t, s.Apply(ToolResult{CallID: "nap"}))
	require.Empty(t, s.Waits, "a result ends the wait")
	require.NoError(t, s.Apply(ChildEnded{ChildID: "a.child-3", Status: "completed"}))
	require.Empty(t, s.Children)

	for _, bad := range []Event{
		ChildSettled{ChildID: "nobody"}, ChildEnded{ChildID: "nobody"}, DecisionMade{CallID: "x"},
		DecisionRequested{CallID: "not-open"}, WaitStarted{CallID: "not-open"},
	} {
		c := s
		require.ErrorIs(t, c.Apply(bad), ErrInvalidTransition, "%T", bad)
	}
}
