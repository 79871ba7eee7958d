package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Seed 002's tool loop: calls start by execution mode, tool/call when a
// call really starts, ordered pre, concurrent execution, ordered post,
// results committed in model order.

func toolsDriver(t *testing.T, modes map[string]signals.ToolMode, bound int, tools ...string) *driver {
	return newDriver(t, signals.AgentOptions{Tools: tools, MaxParallelTools: bound}, func(c *Config) { c.Modes = modes })
}

func TestResultsAreCommittedInModelOrderWhateverOrderToolsFinishIn(t *testing.T) {
	d := toolsDriver(t, nil, 4, "t")
	d.followup("f1")
	d.resume()
	d.answerModel(calls("t", "t", "t"))
	require.Len(t, inFlight[StartTool](d), 3, "parallel calls run at once")
	d.finishTool("c2", "third")
	d.finishTool("c1", "second")
	require.Empty(t, only[eventlog.ToolResult](d.events()), "c0 is not in yet")
	d.finishTool("c0", "first")
	var got []string
	for _, r := range only[eventlog.ToolResult](d.events()) {
		got = append(got, r.Content)
	}
	require.Equal(t, []string{"first", "second", "third"}, got)
	require.Len(t, inFlight[CallModel](d), 1, "then the next step")
}

func TestToolCallIsRecordedWhenTheCallStartsSoABarrierReadsTruthfully(t *testing.T) {
	modes := map[string]signals.ToolMode{"x": signals.ToolExclusive}
	d := toolsDriver(t, modes, 4, "p", "x")
	d.followup("f1")
	d.resume()
	d.answerModel(calls("p", "x", "p"))
	require.Equal(t, []string{"c0"}, callIDs(inFlight[StartTool](d)), "nothing passes the barrier")
	require.Len(t, only[eventlog.ToolCall](d.events()), 1, "the waiting calls have not started")
	d.finishTool("c0", "r0")
	require.Equal(t, []string{"c1"}, callIDs(inFlight[StartTool](d)))
	d.finishTool("c1", "r1")
	d.finishTool("c2", "r2")
	var order []string
	for _, e := range d.events() {
		switch e := e.(type) {
		case eventlog.ToolCall:
			order = append(order, "call "+e.CallID)
		case eventlog.ToolResult:
			order = append(order, "result "+e.CallID)
		}
	}
	require.Equal(t, []string{"call c0", "result c0", "call c1", "result c1", "call c2", "result c2"}, order)
}

func TestSequentialCallsRunOneAtATimeInModelOrder(t *testing.T) {
	d := toolsDriver(t, map[string]signals.ToolMode{"s": signals.ToolSequential}, 4, "s", "p")
	d.followup("f1")
	d.resume()
	d.answerModel(calls("s", "s", "p"))
	require.Equal(t, []string{"c0", "c2"}, callIDs(inFlight[StartTool](d)), "a parallel call passes a waiting sequential one")
	d.finishTool("c0", "r0")
	require.Equal(t, []string{"c2", "c1"}, callIDs(inFlight[StartTool](d)))
}

func TestTheRollingPoolIsBoundedByMaxParallelTools(t *testing.T) {
	d := toolsDriver(t, nil, 2, "t")
	d.followup("f1")
	d.resume()
	d.answerModel(calls("t", "t", "t", "t"))
	require.Equal(t, []string{"c0", "c1"}, callIDs(inFlight[StartTool](d)))
	d.finishTool("c1", "r1")
	require.Equal(t, []string{"c0", "c2"}, callIDs(inFlight[StartTool](d)), "a slot frees, the next call starts")
}

func TestACallTheAgentMayNotUseGetsAnErrorResultWithoutStarting(t *testing.T) {
	d := toolsDriver(t, nil, 4, "t")
	d.followup("f1")
	d.resume()
	d.answerModel(calls("rm_rf"))
	evs := d.events()
	require.Empty(t, only[eventlog.ToolCall](evs))
	res := only[eventlog.ToolResult](evs)[0]
	require.True(t, res.IsError)
	require.Equal(t, eventlog.ToolUnavailable, res.Outcome)
	require.Contains(t, res.Content, `tool "rm_rf" is not available to this agent; available: t`)
	require.Empty(t, seen[RunToolPre](d), "hooks never see it")
}

func TestADeniedCallGetsItsReasonAndNeverStarts(t *testing.T) {
	d := toolsDriver(t, nil, 4, "t")
	d.toolPre = func(c Call) (string, error) {
		if c.Index == 0 {
			return "policy: no", nil
		}
		return "", nil
	}
	d.followup("f1")
	d.resume()
	d.answerModel(calls("t", "t"))
	require.Equal(t, []string{"c1"}, callIDs(inFlight[StartTool](d)))
	d.finishTool("c1", "ok")
	evs := d.events()
	require.Equal(t, []string{"c1"}, toolCallIDs(evs))
	res := only[eventlog.ToolResult](evs)
	require.Equal(t, eventlog.ToolResult{CallID: "c0", Name: "t", IsError: true, Content: "tool call denied: policy: no",
		Outcome: eventlog.ToolDenied}, res[0])
}

func TestPreAndPostHooksRunInModelOrder(t *testing.T) {
	d := toolsDriver(t, nil, 4, "t")
	var pre, post []string
	d.toolPre = func(c Call) (string, error) { pre = append(pre, c.ID); return "", nil }
	d.toolPost = func(c Call, out signals.ToolOutput) signals.ToolOutput {
		post = append(post, c.ID)
		if c.ID == "c1" {
			out.Content = "redacted"
		}
		return out
	}
	d.followup("f1")
	d.resume()
	d.answerModel(calls("t", "t", "t"))
	d.finishTool("c2", "r2")
	d.finishTool("c0", "r0")
	d.finishTool("c1", "secret")
	require.Equal(t, []string{"c0", "c1", "c2"}, pre)
	require.Equal(t, []string{"c0", "c1", "c2"}, post)
	call := take[CallModel](d)
	var refs []eventlog.Ref
	for _, env := range call.Input.Journal.Envelopes() {
		if env.Type == eventlog.TypeToolResult {
			refs = append(refs, env.Ref)
		}
	}
	require.Equal(t, []eventlog.Ref{"act:tool-1-1-0", "", "act:tool-1-1-2"}, refs, "a rewritten result is the hook's, inline")
	require.Equal(t, "redacted", only[eventlog.ToolResult](d.events())[1].Content)
}

func TestCancelDuringToolsCancelsRunningAndWaitingCallsInModelOrder(t *testing.T) {
	d := toolsDriver(t, map[string]signals.ToolMode{"x": signals.ToolExclusive}, 4, "t", "x")
	d.followup("f1")
	d.resume()
	d.answerModel(calls("t", "t", "x"))
	d.finishTool("c1", "done before the cancel")
	rd := d.step(Cancel{Cause: "stop"})
	require.Contains(t, rd.Commands, Command(Interrupt{}))
	d.cancelInflight()
	evs := d.events()
	res := only[eventlog.ToolResult](evs)
	require.Equal(t, []eventlog.ToolOutcome{eventlog.ToolCanceled, "", eventlog.ToolCanceled},
		[]eventlog.ToolOutcome{res[0].Outcome, res[1].Outcome, res[2].Outcome})
	require.Equal(t, "tool call canceled: stop", res[2].Content)
	require.Equal(t, []string{"c0", "c1"}, toolCallIDs(evs), "the barrier call never started")
	require.Equal(t, eventlog.EndCanceled, only[eventlog.TurnEnd](evs)[0].Reason)
	d.requireOK()
}

func TestAFailedToolActivityBecomesAnErrorResultTheModelSees(t *testing.T) {
	d := toolsDriver(t, nil, 4, "t")
	d.followup("f1")
	d.resume()
	d.answerModel(calls("t"))
	st := take[StartTool](d)
	d.step(ToolDone{CallID: st.Call.ID, Failed: "disk full"})
	res := only[eventlog.ToolResult](d.events())[0]
	require.Equal(t, "tool t failed: disk full", res.Content)
	require.Equal(t, eventlog.ToolFailed, res.Outcome)
	require.Len(t, inFlight[CallModel](d), 1, "the turn goes on")
}

func TestAToolHookFailureAbandonsTheStepsCallsAndFailsTheTurn(t *testing.T) {
	d := toolsDriver(t, nil, 4, "t")
	d.toolPre = func(c Call) (string, error) {
		if c.Index == 1 {
			return "", errors.New("hook audit failed at tool-pre: down")
		}
		return "", nil
	}
	d.followup("f1")
	d.resume()
	d.answerModel(calls("t", "t", "t"))
	require.Equal(t, 1, d.interrupted, "c0 is in flight")
	d.cancelInflight()
	evs := d.events()
	for _, r := range only[eventlog.ToolResult](evs) {
		require.Equal(t, eventlog.ToolAbandoned, r.Outcome, r.CallID)
	}
	end := only[eventlog.TurnEnd](evs)[0]
	require.Equal(t, eventlog.EndFailed, end.Reason)
	require.Equal(t, "hook audit failed at tool-pre: down", end.Error)
	d.requireOK()
}

func TestFastToolsRunAsLocalActivitiesWithTheirArgumentsInline(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Tools: []string{"clock", "slow"}}, func(c *Config) { c.Local = []string{"clock"} })
	d.followup("f1")
	d.resume()
	d.answerModel(calls("clock", "slow"))
	starts := inFlight[StartTool](d)
	require.True(t, starts[0].Local)
	require.JSONEq(t, `{}`, string(starts[0].Input.Arguments))
	require.True(t, starts[0].Input.Journal.IsZero(), "a local activity's input is not in history")
	require.False(t, starts[1].Local)
	require.JSONEq(t, `{}`, string(starts[1].Input.Arguments), "small arguments travel inline")
	var refs []eventlog.Ref
	for _, env := range starts[1].Input.Journal.Envelopes() {
		if env.Type == eventlog.TypeToolCall {
			refs = append(refs, env.Ref)
		}
	}
	require.Equal(t, []eventlog.Ref{"", "in:tool-1-1-1"}, refs)
	require.Equal(t, "a1/1/1/c1", starts[1].Input.IdempotencyKey)
}

func TestToolArgumentsOverTheInlineBoundAreReadFromTheLog(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Tools: []string{"slow"}, MaxParallelTools: 2})
	d.followup("f1")
	d.resume()
	small := `{"q":"` + strings.Repeat("x", signals.MaxInlineArguments-8) + `"}`
	large := `{"q":"` + strings.Repeat("x", signals.MaxInlineArguments-7) + `"}`
	d.answerModel(signals.ModelOutput{FinishReason: eventlog.FinishToolCalls, ToolCalls: []eventlog.ToolCallRequest{
		{ID: "c0", Name: "slow", Arguments: json.RawMessage(small)},
		{ID: "c1", Name: "slow", Arguments: json.RawMessage(large)},
	}})
	starts := inFlight[StartTool](d)
	require.Len(t, starts, 2)
	require.Len(t, small, signals.MaxInlineArguments)
	require.Equal(t, small, string(starts[0].Input.Arguments), "at the bound: inline")
	require.Nil(t, starts[1].Input.Arguments, "past it: the activity reads the assistant message")
	require.Positive(t, starts[1].Input.AssistantSeq, "which it names")
	require.Zero(t, starts[0].Input.AssistantSeq, "inline arguments need no seq")
}

func TestToolCallWithoutArgumentsTravelsInlineAsRecorded(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Tools: []string{"slow"}})
	d.followup("f1")
	d.resume()
	d.answerModel(signals.ModelOutput{FinishReason: eventlog.FinishToolCalls, ToolCalls: []eventlog.ToolCallRequest{
		{ID: "c0", Name: "slow"},
	}})
	st := take[StartTool](d)
	msg := only[eventlog.AssistantMessage](d.events())
	require.NotEmpty(t, st.Input.Arguments, "an empty input would read as \"from the log\", at seq 0")
	require.Equal(t, string(msg[len(msg)-1].ToolCalls[0].Arguments), string(st.Input.Arguments), "what the log records")
}

func callIDs(cs []StartTool) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Call.ID)
	}
	return out
}

func toolCallIDs(evs []eventlog.Event) []string {
	var out []string
	for _, c := range only[eventlog.ToolCall](evs) {
		out = append(out, c.CallID)
	}
	return out
}

func TestToolArgumentsThatAreNotJSONAreRecordedAsAStringTheToolRefuses(t *testing.T) {
	d := toolsDriver(t, nil, 4, "t")
	d.followup("f1")
	d.resume()
	out := calls("t")
	out.ToolCalls[0].Arguments = json.RawMessage(`{"path": unterminated`)
	d.answerModel(out)
	st := take[StartTool](d)
	require.Equal(t, "c0", st.Call.ID)
	am := only[eventlog.AssistantMessage](d.events())[0]
	require.JSONEq(t, `"{\"path\": unterminated"`, string(am.ToolCalls[0].Arguments))
	d.requireOK()
}

func TestEmptyDuplicateAndOversizedCallIDsAreMadeUnique(t *testing.T) {
	d := toolsDriver(t, nil, 8, "t")
	d.followup("f1")
	d.resume()
	out := calls("t", "t", "t", "t")
	out.ToolCalls[0].ID = "same"
	out.ToolCalls[1].ID = "same"
	out.ToolCalls[2].ID = ""
	out.ToolCalls[3].ID = strings.Repeat("x", MaxCallIDBytes+1)
	d.answerModel(out)
	var ids []string
	for _, st := range inFlight[StartTool](d) {
		ids = append(ids, st.Call.ID)
	}
	require.Equal(t, []string{"same", "call-1", "call-2", "call-3"}, ids)
	keys := map[string]bool{}
	for _, st := range inFlight[StartTool](d) {
		require.False(t, keys[st.Input.IdempotencyKey], "idempotency keys never collide")
		keys[st.Input.IdempotencyKey] = true
	}
	for _, id := range ids {
		d.finishTool(id, "r")
	}
	require.Len(t, only[eventlog.ToolResult](d.events()), 4)
	d.requireOK()
}

func TestAStepRunsAtMostMaxCallsPerStepCalls(t *testing.T) {
	d := toolsDriver(t, nil, MaxCallsPerStep+10, "t")
	d.followup("f1")
	d.resume()
	names := make([]string, MaxCallsPerStep+3)
	for i := range names {
		names[i] = "t"
	}
	out := calls(names...)
	for i := range out.ToolCalls {
		out.ToolCalls[i].ID = fmt.Sprintf("k%d", i)
	}
	d.answerModel(out)
	require.Len(t, inFlight[StartTool](d), MaxCallsPerStep)
	for _, st := range inFlight[StartTool](d) {
		d.finishTool(st.Call.ID, "r")
	}
	res := only[eventlog.ToolResult](d.events())
	require.Len(t, res, MaxCallsPerStep+3)
	require.Contains(t, res[MaxCallsPerStep].Content, "a step may make at most")
	d.requireOK()
}
