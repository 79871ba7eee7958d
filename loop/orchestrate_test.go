package loop

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Issue 9's rules against the pure loop: child agents, people in the loop,
// durable waits.

func call(name, args string) signals.ModelOutput {
	return signals.ModelOutput{FinishReason: eventlog.FinishToolCalls, ToolCalls: []eventlog.ToolCallRequest{
		{ID: "c0", Name: name, Arguments: json.RawMessage(args)}}}
}

func callsWith(name string, args ...string) signals.ModelOutput {
	out := signals.ModelOutput{FinishReason: eventlog.FinishToolCalls}
	for i, a := range args {
		out.ToolCalls = append(out.ToolCalls, eventlog.ToolCallRequest{ID: "c" + string(rune('0'+i)), Name: name, Arguments: json.RawMessage(a)})
	}
	return out
}

func report(child string, turn int, reason eventlog.EndReason, text string, spent int64) ChildReport {
	return ChildReport{Report: signals.ChildReport{ID: signals.ChildReportID(child, turn), Child: child, Turn: turn, Reason: reason,
		Text: text, Spent: eventlog.Usage{InputTokens: spent}}}
}

func parentDriver(t *testing.T, opts signals.AgentOptions) *driver {
	opts.Tools = append(opts.Tools, signals.SpawnTool, signals.AskHumanTool, signals.WaitTool, "t")
	return newDriver(t, opts)
}

func TestASpawnThatWaitsAnswersWithTheChildsFirstSettledAnswer(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{SystemPrompt: "boss"})
	d.followup("f1")
	d.resume()
	d.answerModel(call(signals.SpawnTool, `{"task":"count the files","system_prompt":"be a counter"}`))
	start := take[StartChild](d)
	require.True(t, strings.HasPrefix(start.ChildID, "a1.child-"), start.ChildID)
	require.Equal(t, start.ChildID, only[eventlog.ChildStarted](d.events())[0].ChildID)
	require.Equal(t, "count the files", start.Input.First.Content)
	require.Equal(t, "be a counter", start.Input.Options.SystemPrompt)
	require.Equal(t, &signals.ParentLink{ID: "a1", Depth: 1}, start.Input.Parent)
	require.Equal(t, "a1", start.Input.Options.Parent)
	d.step(ChildStart{ChildID: start.ChildID})
	require.Empty(t, inFlight[CallModel](d), "the call waits for the child's answer")
	require.Len(t, d.l.Status().Children, 1)

	d.step(report(start.ChildID, 1, eventlog.EndCompleted, "42 files", 300))
	res := only[eventlog.ToolResult](d.events())[0]
	require.Equal(t, "42 files", res.Content)
	require.False(t, res.IsError)
	dispose := seen[SignalChild](d)
	require.Len(t, dispose, 1, "a child that answered its waiting call is disposed")
	require.NotNil(t, dispose[0].Dispose)
	require.Equal(t, int64(300), d.l.State().Usage.InputTokens, "the child's spending rolls up")
	require.Len(t, inFlight[CallModel](d), 1, "the turn goes on")

	d.step(ChildClosed{ChildID: start.ChildID, Status: "disposed"})
	require.Empty(t, d.l.State().Children)
	d.requireOK()
}

func TestADetachedChildAnswersAtOnceAndItsTurnsArriveFromIt(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.answerModel(call(signals.SpawnTool, `{"task":"watch the queue","mode":"detach","list":"next-step"}`))
	start := take[StartChild](d)
	d.step(ChildStart{ChildID: start.ChildID})
	res := only[eventlog.ToolResult](d.events())[0]
	require.Contains(t, res.Content, start.ChildID+" started")
	d.answerModel(answer("will report"))
	require.False(t, d.l.State().InTurn)

	for turn := 1; turn <= 2; turn++ {
		d.step(report(start.ChildID, turn, eventlog.EndCompleted, "queue is fine", int64(100*turn)))
		ins := only[eventlog.InboxInserted](d.events())
		last := ins[len(ins)-1]
		require.Equal(t, signals.ChildReportID(start.ChildID, turn), last.MessageID)
		require.Equal(t, eventlog.NextStep, last.List)
		require.Equal(t, &eventlog.Initiator{Kind: eventlog.ByChild, ID: start.ChildID}, last.From)
		require.True(t, d.l.State().InTurn, "a child's report wakes its parent")
		d.answerModel(answer("noted"))
	}
	require.Equal(t, int64(200), d.l.State().Usage.InputTokens, "reports count only what was spent since the last")
	require.Empty(t, seen[SignalChild](d), "a detached child lives on")
	d.requireOK()
}

// A report signalled twice (a raw resend) or under an ID the child never
// uses is dropped: it neither fails the loop nor counts twice.
func TestAChildsReportIsTakenOnceAndOnlyUnderItsOwnID(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.answerModel(call(signals.SpawnTool, `{"task":"watch","mode":"detach"}`))
	start := take[StartChild](d)
	d.step(ChildStart{ChildID: start.ChildID})
	d.answerModel(answer("will report"))

	first := report(start.ChildID, 1, eventlog.EndCompleted, "all quiet", 100)
	d.step(first)
	d.step(first) // the same report again while the first is still pending
	forged := report(start.ChildID, 2, eventlog.EndCompleted, "forged", 100)
	forged.Report.ID = "someone-else"
	d.step(forged)
	zero := report(start.ChildID, 0, eventlog.EndCompleted, "turn zero", 100)
	d.step(zero)
	require.Len(t, only[eventlog.InboxInserted](d.events())[1:], 1, "one report in the inbox")
	require.Len(t, only[eventlog.ChildSettled](d.events()), 1)
	require.Equal(t, int64(100), d.l.State().Usage.InputTokens)
	d.requireOK()
}

func TestParallelSpawnsRunAtOnceAndTheirResultsCommitInModelOrder(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.answerModel(callsWith(signals.SpawnTool, `{"task":"one"}`, `{"task":"two"}`, `{"task":"three"}`))
	starts := inFlight[StartChild](d)
	require.Len(t, starts, 3)
	for _, s := range starts {
		d.step(ChildStart{ChildID: s.ChildID})
	}
	d.step(report(starts[2].ChildID, 1, eventlog.EndCompleted, "third", 1))
	d.step(report(starts[1].ChildID, 1, eventlog.EndFailed, "", 1))
	require.Empty(t, only[eventlog.ToolResult](d.events()))
	d.step(report(starts[0].ChildID, 1, eventlog.EndCompleted, "first", 1))
	res := only[eventlog.ToolResult](d.events())
	require.Equal(t, []string{"first", "child agent " + starts[1].ChildID + ": turn 1 ended failed", "third"},
		[]string{res[0].Content, res[1].Content, res[2].Content})
	require.True(t, res[1].IsError, "a failed child is an error result the model reads")
	d.requireOK()
}

func TestCancelingTheTurnCancelsTheChildrenItWaitsOnGracefully(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.answerModel(callsWith(signals.SpawnTool, `{"task":"slow one"}`, `{"task":"detached","mode":"detach"}`))
	starts := inFlight[StartChild](d)
	d.step(ChildStart{ChildID: starts[0].ChildID})
	d.step(ChildStart{ChildID: starts[1].ChildID})
	d.step(Cancel{Cause: "stop"})
	require.True(t, d.l.Due(), "the canceled step has results to commit that no outcome will bring")
	d.resume()
	sig := seen[SignalChild](d)
	require.Len(t, sig, 1, "only the waited child's turn is canceled")
	require.Equal(t, starts[0].ChildID, sig[0].ChildID)
	require.Equal(t, "stop", sig[0].Cancel.Cause)
	d.cancelInflight()
	evs := d.events()
	require.Equal(t, eventlog.EndCanceled, only[eventlog.TurnEnd](evs)[0].Reason)
	require.Equal(t, eventlog.ToolCanceled, only[eventlog.ToolResult](evs)[0].Outcome)

	d.step(report(starts[0].ChildID, 1, eventlog.EndCanceled, "", 50))
	require.Equal(t, int64(50), d.l.State().Usage.InputTokens, "its canceled turn still counts")
	require.NotNil(t, seen[SignalChild](d)[1].Dispose, "and it is disposed, having nothing left to do")
	d.requireOK()
}

func TestDisposingTheParentDisposesItsChildren(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.answerModel(call(signals.SpawnTool, `{"task":"background","mode":"detach"}`))
	start := take[StartChild](d)
	d.step(ChildStart{ChildID: start.ChildID})
	d.answerModel(answer("ok"))
	d.step(Dispose{Cause: "done"})
	d.resume()
	sig := seen[SignalChild](d)
	require.Len(t, sig, 1)
	require.Equal(t, start.ChildID, sig[0].ChildID)
	require.Contains(t, sig[0].Dispose.Cause, "parent a1 disposed")
	require.Len(t, seen[Finish](d), 1)
}

func TestAChildBudgetIsAShareOfWhatIsLeftSoATreeCannotOverspend(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{Budget: &signals.Budget{MaxTokens: 1000}})
	d.followup("f1")
	d.resume()
	out := callsWith(signals.SpawnTool, `{"task":"a","budget":0.5}`, `{"task":"b","budget":1}`)
	out.Usage = eventlog.Usage{InputTokens: 200}
	d.answerModel(out)
	starts := inFlight[StartChild](d)
	require.Equal(t, int64(400), starts[0].Input.Options.Budget.MaxTokens, "half of the 800 left")
	require.Equal(t, int64(400), starts[1].Input.Options.Budget.MaxTokens, "all of what the first did not take")
	for _, s := range starts {
		d.step(ChildStart{ChildID: s.ChildID})
	}
	require.Contains(t, d.l.overBudget(), "held by children", "the parent may not spend what its children hold")
	d.step(report(starts[0].ChildID, 1, eventlog.EndCompleted, "a", 100))
	d.step(report(starts[1].ChildID, 1, eventlog.EndCompleted, "b", 400))
	require.Equal(t, int64(700), d.l.State().Usage.InputTokens)
	d.step(ChildClosed{ChildID: starts[0].ChildID, Status: "disposed"})
	d.step(ChildClosed{ChildID: starts[1].ChildID, Status: "disposed"})
	require.Empty(t, d.l.overBudget(), "their ends release what they did not spend")
	d.requireOK()
}

func TestASpawnTheLoopCannotHonourIsAnErrorResultTheModelReads(t *testing.T) {
	cases := map[string]string{
		"tools the parent may not use": `{"task":"x","tools":["rm_rf"]}`,
		"no task":                      `{"task":"  "}`,
		"a budget share above one":     `{"task":"x","budget":2}`,
		"an unknown mode":              `{"task":"x","mode":"fork"}`,
		"an unknown profile":           `{"task":"x","profile":"nope"}`,
		"arguments of the wrong type":  `{"task":"x","mode":7}`,
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			d := parentDriver(t, signals.AgentOptions{})
			d.followup("f1")
			d.resume()
			d.answerModel(call(signals.SpawnTool, args))
			require.Empty(t, inFlight[StartChild](d))
			res := only[eventlog.ToolResult](d.events())[0]
			require.True(t, res.IsError)
			require.True(t, strings.HasPrefix(res.Content, "spawn_agent: "), res.Content)
			require.Len(t, inFlight[CallModel](d), 1, "the turn goes on")
			d.requireOK()
		})
	}
}

func TestAChildThatEndsBeforeAnsweringFailsTheWaitingCall(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.answerModel(call(signals.SpawnTool, `{"task":"x"}`))
	start := take[StartChild](d)
	d.step(ChildStart{ChildID: start.ChildID})
	d.step(ChildClosed{ChildID: start.ChildID, Status: "terminated"})
	res := only[eventlog.ToolResult](d.events())[0]
	require.Contains(t, res.Content, "ended (terminated) before answering")
	require.Equal(t, eventlog.ChildEnded{ChildID: start.ChildID, Status: "terminated"}, only[eventlog.ChildEnded](d.events())[0])

	d2 := parentDriver(t, signals.AgentOptions{})
	d2.followup("f1")
	d2.resume()
	d2.answerModel(call(signals.SpawnTool, `{"task":"x"}`))
	s2 := take[StartChild](d2)
	d2.step(ChildStart{ChildID: s2.ChildID, Err: errors.New("workflow already started")})
	require.Contains(t, only[eventlog.ToolResult](d2.events())[0].Content, "not started: workflow already started")
	d2.requireOK()
}

func TestAChildReportsEachSettledTurnAndItsEndToItsParent(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{}, func(c *Config) { c.AgentID, c.Parent = "p.child-9", &signals.ParentLink{ID: "p", Depth: 1} })
	d.recover = func(eventlog.Failure) Action { return Action{Retry: true} }
	d.step(Accept{Message: signals.Message{ID: "task", Content: "do it"}, List: eventlog.NextTurn, Wake: true,
		From: &eventlog.Initiator{Kind: eventlog.ByParent, ID: "p"}})
	d.resume()
	d.failModel(eventlog.Failure{Kind: eventlog.FailureServer})
	require.Empty(t, seen[ReportToParent](d), "a turn that is retried has not settled")
	out := answer("done it")
	out.Usage = eventlog.Usage{InputTokens: 70, OutputTokens: 5}
	d.answerModel(out)
	reps := seen[ReportToParent](d)
	require.Len(t, reps, 1)
	require.Equal(t, signals.ChildReport{ID: "p.child-9#2", Child: "p.child-9", Turn: 2, Reason: eventlog.EndCompleted,
		Text: "done it", Spent: eventlog.Usage{InputTokens: 70, OutputTokens: 5}}, reps[0].Report)
	require.Equal(t, eventlog.ByParent, only[eventlog.InboxInserted](d.events())[0].From.Kind)

	d.step(Dispose{Cause: "answered its parent"})
	d.resume()
	reps = seen[ReportToParent](d)
	require.Equal(t, "disposed: answered its parent", reps[1].Report.Ended)
}

func TestAChildWhoseParentIsGoneFinishesItsTurnAndStops(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{}, func(c *Config) { c.AgentID, c.Parent = "p.child-9", &signals.ParentLink{ID: "p", Depth: 1} })
	d.followup("f1")
	d.resume()
	d.step(ParentGone{Err: errors.New("workflow not found")})
	require.Empty(t, d.interrupted, "its turn is not canceled")
	d.answerModel(answer("finished anyway"))
	require.Equal(t, eventlog.EndCompleted, only[eventlog.TurnEnd](d.events())[0].Reason)
	require.Len(t, seen[Finish](d), 1)
}

func TestApprovalHoldsACallUntilAPersonDecides(t *testing.T) {
	for _, verdict := range []Verdict{Approve, Deny} {
		t.Run(string(verdict), func(t *testing.T) {
			d := parentDriver(t, signals.AgentOptions{Approval: &signals.ApprovalPolicy{Tools: []string{"t"}}})
			d.followup("f1")
			d.resume()
			d.answerModel(call("t", `{"to":"ceo@example.com"}`))
			require.Empty(t, inFlight[StartTool](d), "nothing runs before the decision")
			st := d.l.Status()
			require.Len(t, st.Pending, 1)
			require.Equal(t, `{"to":"ceo@example.com"}`, st.Pending[0].Arguments)
			require.True(t, st.Blocked())
			require.Empty(t, toolCallIDs(d.events()), "the call has not started")

			dec := signals.Decision{ID: "d1", CallID: "c0", Decider: "ops", Text: "not now"}
			rd := d.step(Decide{Verdict: verdict, Decision: dec})
			require.NoError(t, rd.Err)
			made := only[eventlog.DecisionMade](d.events())[0]
			require.Equal(t, eventlog.DecisionMade{CallID: "c0", Approved: verdict == Approve, Decider: "ops", Text: "not now"}, made)
			if verdict == Approve {
				require.Len(t, inFlight[StartTool](d), 1)
				d.finishTool("c0", "sent")
			} else {
				res := only[eventlog.ToolResult](d.events())[0]
				require.Equal(t, "tool call denied by ops: not now", res.Content)
				require.Equal(t, eventlog.ToolDenied, res.Outcome)
			}
			require.Empty(t, d.l.Status().Pending)
			require.Len(t, inFlight[CallModel](d), 1)
			require.ErrorIs(t, d.l.CheckDecision(verdict, dec), signals.ErrNoSuchDecision, "decided once")
			d.requireOK()
		})
	}
}

func TestApprovalRulesMatchACallsArgumentsByPath(t *testing.T) {
	pol := &signals.ApprovalPolicy{When: []signals.ApprovalRule{
		{Tool: "t", Path: "$.to.domain", Equals: json.RawMessage(`"example.com"`)},
		{Tool: "t", Path: "$.force"},
	}}
	cases := []struct {
		args string
		need bool
	}{
		{`{"to":{"domain":"example.com"}}`, true},
		{`{"to":{"domain":"elsewhere.org"}}`, false},
		{`{"force":false}`, true},
		{`{}`, false},
		{`not json`, false},
	}
	l := New(Config{Options: signals.AgentOptions{Approval: pol}})
	for _, tc := range cases {
		require.Equal(t, tc.need, l.orch.needsApproval(Call{Name: "t", Arguments: json.RawMessage(tc.args)}), tc.args)
	}
	require.False(t, l.orch.needsApproval(Call{Name: "other", Arguments: json.RawMessage(`{"force":1}`)}))
}

func TestAnApprovalDeadlineDecidesByPolicy(t *testing.T) {
	for _, on := range []string{"deny", "approve"} {
		d := parentDriver(t, signals.AgentOptions{Approval: &signals.ApprovalPolicy{Tools: []string{"t"}, Timeout: time.Hour, OnTimeout: on}})
		d.followup("f1")
		d.resume()
		d.answerModel(call("t", `{}`))
		timer := take[StartTimer](d)
		require.Equal(t, signals.DecideTimer("c0"), timer.ID)
		require.Equal(t, time.Hour, timer.After)
		require.False(t, d.l.Status().Pending[0].Deadline.IsZero())
		d.step(TimerFired{ID: timer.ID})
		made := only[eventlog.DecisionMade](d.events())[0]
		require.Equal(t, "timeout", made.Decider)
		require.Equal(t, on == "approve", made.Approved)
		require.Equal(t, on == "approve", len(inFlight[StartTool](d)) == 1)
		d.requireOK()
	}
}

func TestCheckDecisionRefusesWhatNothingWaitsFor(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{Approval: &signals.ApprovalPolicy{Tools: []string{"t"}}})
	d.followup("f1")
	d.resume()
	d.answerModel(call("t", `{}`))
	ok := signals.Decision{ID: "d1", CallID: "c0"}
	require.NoError(t, d.l.CheckDecision(Approve, ok))
	require.ErrorIs(t, d.l.CheckDecision(Approve, signals.Decision{ID: "d2", CallID: "nope"}), signals.ErrNoSuchDecision)
	require.ErrorIs(t, d.l.CheckDecision(Answer, ok), signals.ErrNoSuchDecision, "an approval is not answered")
	require.ErrorIs(t, d.l.CheckDecision(Approve, signals.Decision{CallID: "c0"}), signals.ErrInvalidID)
	require.ErrorIs(t, d.l.CheckDecision(Approve, signals.Decision{ID: "d3", CallID: "c0", Text: strings.Repeat("x", signals.MaxDecisionBytes+1)}),
		signals.ErrMessageTooLarge)
	d.step(Dispose{})
	require.ErrorIs(t, d.l.CheckDecision(Approve, ok), signals.ErrDisposed)
}

func TestAnAskHumanAnswerIsTheCallsResult(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{Approval: &signals.ApprovalPolicy{AnswerTimeout: time.Minute}})
	d.followup("f1")
	d.resume()
	d.answerModel(callsWith(signals.AskHumanTool, `{"question":"which colour?"}`, `{"question":"and size?"}`))
	require.Len(t, d.l.Status().Pending, 2)
	require.Equal(t, eventlog.NeedAnswer, d.l.Status().Pending[0].Kind)
	rd := d.step(Decide{Verdict: Answer, Decision: signals.Decision{ID: "a1", CallID: "c0", Decider: "kim", Text: "blue"}})
	require.NoError(t, rd.Err)
	d.step(TimerFired{ID: signals.DecideTimer("c1")})
	res := only[eventlog.ToolResult](d.events())
	require.Equal(t, "blue", res[0].Content)
	require.Equal(t, "no answer within 1m0s", res[1].Content)
	require.Equal(t, eventlog.ToolUnanswered, res[1].Outcome)
	d.requireOK()
}

func TestAWaitSleepsOnADurableTimerBoundedByPolicy(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{Wait: &signals.WaitPolicy{Max: time.Hour, Interruptible: true}})
	d.followup("f1")
	d.resume()
	d.answerModel(callsWith(signals.WaitTool, `{"seconds":90}`, `{"seconds":7200}`, `{"until":"yesterday"}`))
	timers := inFlight[StartTimer](d)
	require.Len(t, timers, 1)
	require.Equal(t, 90*time.Second, timers[0].After)
	require.Len(t, d.l.Status().Waits, 1)
	d.step(TimerFired{ID: timers[0].ID})
	res := only[eventlog.ToolResult](d.events())
	require.True(t, strings.HasPrefix(res[0].Content, "waited until "))
	require.Contains(t, res[1].Content, "longer than this agent may wait")
	require.Contains(t, res[2].Content, "not an RFC 3339 time")
	d.requireOK()
}

func TestAMessageEndsAnInterruptibleWaitEarly(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{Wait: &signals.WaitPolicy{Interruptible: true}})
	d.followup("f1")
	d.resume()
	d.answerModel(call(signals.WaitTool, `{"seconds":3600}`))
	rd := d.steer("wake-up")
	require.Equal(t, []Command{CancelTimer{ID: signals.WaitTimer("c0")}}, rd.Commands)
	d.cancelInflight()
	require.Contains(t, only[eventlog.ToolResult](d.events())[0].Content, "woken early by a message")
	d.requireOK()
}

func TestTheStatusViewIsBoundedWhateverTheInboxHolds(t *testing.T) {
	// As many messages as the pending budget (signals.MaxPendingBytes) lets wait.
	d := newDriver(t, signals.AgentOptions{})
	size := signals.MaxPendingBytes / (signals.MaxStatusItems + 20)
	for i := range signals.MaxStatusItems + 20 {
		rd := d.step(Accept{Message: signals.Message{ID: eventlog.MessageID("m" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('0'+i/26))),
			Content: strings.Repeat("y", size)}, List: eventlog.NextStep})
		require.NoError(t, rd.Err)
	}
	st := d.l.Status()
	require.Len(t, st.NextStep, signals.MaxStatusItems)
	require.Equal(t, signals.MaxStatusItems+20, st.NextStepLen)
	b, err := json.Marshal(st)
	require.NoError(t, err)
	require.Less(t, len(b), 128<<10, "far below the 2 MB answer limit")
}

// Found by the property test (a cancel was the last input while a question
// waited): between a cancel and the Resume that commits what it answered,
// the question is still listed, but no decision for it is accepted any
// more, by the validator's check as by the loop, and the Resume closes the
// turn with the call canceled.
func TestAQuestionACancelAnsweredTakesNoDecisionAndTheResumeClosesTheTurn(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.answerModel(callsWith(signals.AskHumanTool, `{"question":"why?"}`))
	require.Len(t, d.l.Status().Pending, 1)
	d.step(Cancel{Cause: "stop", KeepInbox: true})
	answer := signals.Decision{ID: "a1", CallID: "c0", Decider: "kim", Text: "because"}
	require.ErrorIs(t, d.l.CheckDecision(Answer, answer), signals.ErrNoSuchDecision,
		"the validator refuses what the loop would refuse")
	rd := d.step(Decide{Verdict: Answer, Decision: answer})
	require.ErrorIs(t, rd.Err, signals.ErrNoSuchDecision)
	require.Empty(t, rd.Recorded, "a refused decision records nothing")
	d.resume()
	evs := d.events()
	require.Equal(t, eventlog.ToolCanceled, only[eventlog.ToolResult](evs)[0].Outcome)
	require.Equal(t, eventlog.EndCanceled, only[eventlog.TurnEnd](evs)[0].Reason)
	require.Empty(t, d.l.Status().Pending)
	require.False(t, d.l.State().InTurn)
	d.requireOK()
}
