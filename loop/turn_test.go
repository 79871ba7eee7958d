package loop

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Seed 000/002's turn: continuation is data (tool calls, pending next-step
// input, turn-stopping's steering), failures close the turn and
// request-error may open a retry turn.

func TestAtANaturalStopPendingNextStepInputTakesAnotherStep(t *testing.T) {
	cases := []struct {
		name  string
		wake  bool
		steps int
	}{
		{"steer", true, 2},
		{"inject", false, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDriver(t, signals.AgentOptions{})
			d.followup("f1")
			d.resume()
			d.step(Accept{Message: msg("late"), List: eventlog.NextStep, Wake: tc.wake}) // during the step
			d.answerModel(answer("first"))
			if tc.steps == 2 {
				for _, h := range seen[RunHooks](d) {
					require.NotEqual(t, PointTurnStopping, h.Point, "turn-stopping waits for an empty next-step list")
				}
				d.answerModel(answer("second"))
			}
			evs := d.events()
			require.Len(t, only[eventlog.StepStart](evs), tc.steps)
			require.Len(t, only[eventlog.TurnEnd](evs), 1)
			d.requireOK()
		})
	}
}

func TestTurnStoppingSteeringTakesOneMoreStep(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	steered := false
	d.stopping = func(d *driver) error {
		if !steered {
			steered = true
			return d.step(Make{Content: "continue, please", List: eventlog.NextStep, Wake: true}).Err
		}
		return nil
	}
	d.followup("f1")
	d.resume()
	d.answerModel(answer("first"))
	d.answerModel(answer("second"))
	evs := d.events()
	require.Len(t, only[eventlog.StepStart](evs), 2)
	users := only[eventlog.UserMessage](evs)
	require.Equal(t, eventlog.MessageID("made:1.1"), users[1].MessageID)
	require.Equal(t, eventlog.EndCompleted, only[eventlog.TurnEnd](evs)[0].Reason)
}

func TestAConcludingToolResultEndsTheToolLoop(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Tools: []string{"finish"}})
	d.followup("f1")
	d.resume()
	d.answerModel(calls("finish"))
	st := take[StartTool](d)
	d.step(ToolDone{CallID: st.Call.ID, Output: signals.ToolOutput{CallID: "c0", Name: "finish", Content: "final", ConcludesTurn: true},
		Ref: eventlog.ActivityRef(st.ActivityID)})
	evs := d.events()
	require.Len(t, only[eventlog.StepStart](evs), 1, "no model call after the concluding result")
	require.Equal(t, eventlog.EndConcluded, only[eventlog.TurnEnd](evs)[0].Reason)
}

func TestAFailedModelCallClosesItsStepAndRequestErrorDecides(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.failModel(eventlog.Failure{Kind: eventlog.FailureAuth, Message: "bad key"})
	evs := d.events()
	require.Equal(t, eventlog.FailureAuth, only[eventlog.AssistantAttempt](evs)[0].Failure.Kind)
	require.Equal(t, []eventlog.Failure{{Kind: eventlog.FailureAuth, Message: "bad key"}}, failures(seen[Recover](d)))
	end := only[eventlog.TurnEnd](evs)[0]
	require.Equal(t, eventlog.EndFailed, end.Reason)
	require.Equal(t, "model call failed (auth): bad key", end.Error)
}

func TestRequestErrorRunsForAnAbortedCallToo(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.step(Cancel{Cause: "stop"})
	d.cancelInflight()
	require.Len(t, seen[Recover](d), 1)
	require.Equal(t, eventlog.EndCanceled, only[eventlog.TurnEnd](d.events())[0].Reason)
}

func TestARetryActionOpensARetryTurnAfterItsBackoff(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.recover = func(eventlog.Failure) Action { return Action{Retry: true, After: 3 * time.Second} }
	d.followup("f1")
	d.followup("f2")
	d.resume()
	d.failModel(eventlog.Failure{Kind: eventlog.FailureServer, Message: "502"})
	timer := take[StartTimer](d)
	require.Equal(t, 3*time.Second, timer.After)
	require.Equal(t, 1, d.l.State().Turn, "the retry turn waits for its timer")
	d.step(TimerFired{ID: signals.BackoffTimer})
	call := take[CallModel](d)
	require.Equal(t, 2, call.Call.Turn)
	evs := d.events()
	require.Equal(t, eventlog.TurnStart{Turn: 2, RetryOf: 1}, only[eventlog.TurnStart](evs)[1])
	require.Len(t, only[eventlog.InboxClaimed](evs), 1, "a retry turn takes no new prompt")
	require.Equal(t, 1, d.l.State().RetryChain)
	require.Len(t, only[eventlog.StatusChanged](evs), 1, "no idle between a turn and its retry")
}

func TestCancelDuringTheBackoffEndsTheTurnCanceled(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.recover = func(eventlog.Failure) Action { return Action{Retry: true, After: time.Minute} }
	d.followup("f1")
	d.resume()
	d.failModel(eventlog.Failure{Kind: eventlog.FailureRateLimit})
	d.step(Cancel{Cause: "stop"})
	d.cancelInflight()
	require.Len(t, only[eventlog.TurnStart](d.events()), 1, "no retry turn")
	require.Equal(t, eventlog.EndCanceled, only[eventlog.TurnEnd](d.events())[0].Reason)
}

func TestOverflowRecoveryRetriesOnlyWhenCompactionShrankTheContext(t *testing.T) {
	for _, shrinks := range []bool{true, false} {
		t.Run(map[bool]string{true: "shrank", false: "nothing to compact"}[shrinks], func(t *testing.T) {
			d := newDriver(t, signals.AgentOptions{Compaction: &signals.Compaction{KeepRecent: 1}})
			d.recover = func(eventlog.Failure) Action { return Action{Retry: true, Compact: true} }
			if shrinks {
				d.followup("f0")
				d.resume()
				d.answerModel(answer(strings.Repeat("history ", 100)))
			}
			d.followup("f1")
			d.resume()
			d.failModel(eventlog.Failure{Kind: eventlog.FailureContextOverflow})
			if shrinks {
				take[Summarize](d)
				d.step(Summarized{Text: "short"})
				require.Len(t, inFlight[CallModel](d), 1, "retried")
			} else {
				require.Empty(t, inFlight[Summarize](d))
				require.Empty(t, inFlight[CallModel](d), "the original failure stands")
				require.Equal(t, eventlog.EndFailed, only[eventlog.TurnEnd](d.events())[0].Reason)
			}
			d.requireOK()
		})
	}
}

func TestAPressureCheckCompactsBeforeTheStepOpens(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Compaction: &signals.Compaction{KeepRecent: 1}})
	for _, id := range []string{"f0", "f00"} {
		d.followup(id)
		d.resume()
		d.answerModel(answer(strings.Repeat("history ", 100)))
	}
	d.preStep = func(b []Message) Decision { dec := Enter(b); dec.Compact = true; return dec }
	d.followup("f1")
	d.resume()
	take[Summarize](d)
	require.Len(t, only[eventlog.StepStart](d.events()), 2, "the step opens after the summary")
	d.step(Summarized{Text: "short"})
	evs := d.events()
	var order []eventlog.Type
	for _, e := range evs[len(evs)-5:] {
		order = append(order, e.Type())
	}
	require.Equal(t, []eventlog.Type{eventlog.TypeInboxClaimed, eventlog.TypeContextCompacted, eventlog.TypeStepStart,
		eventlog.TypeUserMessage, eventlog.TypeRequestContext}, order, "the new message enters after the summary")
}

func TestTheLoopHasNoBuiltInStepLimit(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Tools: []string{"t"}, MaxSteps: 3})
	d.followup("f1")
	d.resume()
	for range 4 {
		d.answerModel(calls("t"))
		d.finishTool("c0", "again")
	}
	require.Len(t, only[eventlog.StepStart](d.events()), 5, "the turn-budget hook bounds steps, not the loop")
	require.Len(t, inFlight[CallModel](d), 1)
	require.Empty(t, only[eventlog.TurnEnd](d.events()))
}

func TestATokenBudgetEndsTheTurnBeforeItsNextModelCall(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Tools: []string{"t"}, Budget: &signals.Budget{MaxTokens: 100}})
	d.followup("f1")
	d.resume()
	out := calls("t")
	out.Usage = eventlog.Usage{InputTokens: 90, OutputTokens: 20}
	d.answerModel(out)
	d.finishTool("c0", "r")
	require.Empty(t, inFlight[CallModel](d))
	end := only[eventlog.TurnEnd](d.events())[0]
	require.Equal(t, eventlog.EndBudget, end.Reason)
	require.Equal(t, "token budget exhausted: 110 of 100 tokens used", end.Error)
}

func failures(rs []Recover) []eventlog.Failure {
	var out []eventlog.Failure
	for _, r := range rs {
		out = append(out, r.Failure)
	}
	return out
}
