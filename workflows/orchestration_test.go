package workflows

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// The shell's side of issue 9, in the SDK's test environment: children are
// real child workflows, people decide through the real updates, waits are
// timers on the test clock.

func isParent(in signals.ModelInput) bool { return slices.Contains(in.Call.Tools, signals.SpawnTool) }

func TestSpawnAgentRunsAChildWorkflowWhoseAnswerCompletesTheCall(t *testing.T) {
	h := newHarness(t, func(in signals.ModelInput) (signals.ModelOutput, error) {
		switch {
		case !isParent(in):
			return answer("the child's answer"), nil
		case in.Call.Step == 1:
			return call(signals.SpawnTool, `{"task":"find it","tools":["fast"]}`), nil
		}
		return answer("parent done"), nil
	})
	opts := signals.AgentOptions{Tools: []string{signals.SpawnTool, "fast"}}
	evs := h.run(opts, "delegate", time.Hour)
	res := only[eventlog.ToolResult](evs)
	require.Len(t, res, 1)
	require.Equal(t, "the child's answer", res[0].Content)
	started := only[eventlog.ChildStarted](evs)[0]
	require.Equal(t, eventlog.ChildWait, started.Mode)
	settled := only[eventlog.ChildSettled](evs)[0]
	require.Equal(t, eventlog.EndCompleted, settled.Reason)
	require.Equal(t, "parent done", only[eventlog.AssistantMessage](evs)[1].Text)
}

func TestApproveAndDenyUpdatesDecideAWaitingCall(t *testing.T) {
	for _, verdict := range []string{signals.ApproveUpdate.Name, signals.DenyUpdate.Name} {
		t.Run(verdict, func(t *testing.T) {
			h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": calls("fast")}))
			h.tool("fast", time.Second)
			var before, decided error = errNoOutcome, errNoOutcome
			h.update(time.Minute, verdict, "u0", signals.Decision{ID: "d0", CallID: "nope"}, &before)
			h.update(2*time.Minute, verdict, "u1", signals.Decision{ID: "d1", CallID: "c0", Decider: "kim", Text: "policy"}, &decided)
			h.at(90*time.Second, func() {
				st := h.status()
				require.Len(t, st.Pending, 1, "the call waits, holding no activity")
				require.Equal(t, "{}", st.Pending[0].Arguments)
			})
			opts := tools
			opts.Approval = &signals.ApprovalPolicy{Tools: []string{"fast"}}
			evs := h.run(opts, "go", time.Hour)
			require.ErrorContains(t, before, "no tool call waits for that decision")
			require.NoError(t, decided)
			made := only[eventlog.DecisionMade](evs)[0]
			require.Equal(t, "kim", made.Decider)
			res := only[eventlog.ToolResult](evs)[0]
			if verdict == signals.ApproveUpdate.Name {
				require.Equal(t, "fast ok c0", res.Content)
			} else {
				require.Equal(t, "tool call denied by kim: policy", res.Content)
			}
		})
	}
}

func TestAnApprovalDaysLongTimesOutOnTheTestClock(t *testing.T) {
	h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": calls("fast")}))
	h.tool("fast", time.Second)
	opts := tools
	opts.Approval = &signals.ApprovalPolicy{Tools: []string{"fast"}, Timeout: 72 * time.Hour}
	evs := h.run(opts, "go", 100*time.Hour)
	made := only[eventlog.DecisionMade](evs)[0]
	require.Equal(t, "timeout", made.Decider)
	require.False(t, made.Approved)
	require.Contains(t, only[eventlog.ToolResult](evs)[0].Content, "no decision within 72h0m0s")
}

func TestAskHumanIsAnsweredByTheAnswerUpdate(t *testing.T) {
	h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": call(signals.AskHumanTool, `{"question":"colour?"}`)}))
	var answered error = errNoOutcome
	h.update(time.Hour, signals.AnswerUpdate.Name, "u1", signals.Decision{ID: "d1", CallID: "c0", Text: "blue"}, &answered)
	evs := h.run(signals.AgentOptions{Tools: []string{signals.AskHumanTool}}, "ask", 2*time.Hour)
	require.NoError(t, answered)
	require.Equal(t, "blue", only[eventlog.ToolResult](evs)[0].Content)
}

func TestAWaitOfDaysFiresOnTheTestClock(t *testing.T) {
	h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": call(signals.WaitTool, `{"seconds":172800}`)}))
	h.at(24*time.Hour, func() {
		st := h.status()
		require.Len(t, st.Waits, 1)
		require.True(t, st.InTurn)
	})
	evs := h.run(signals.AgentOptions{Tools: []string{signals.WaitTool}, Wait: &signals.WaitPolicy{Max: 72 * time.Hour}}, "nap", 72*time.Hour)
	res := only[eventlog.ToolResult](evs)[0]
	require.Contains(t, res.Content, "waited until")
	require.Equal(t, eventlog.EndCompleted, only[eventlog.TurnEnd](evs)[0].Reason)
}

func call(name, args string) signals.ModelOutput {
	return signals.ModelOutput{FinishReason: eventlog.FinishToolCalls,
		ToolCalls: []eventlog.ToolCallRequest{{ID: "c0", Name: name, Arguments: []byte(args)}}}
}
