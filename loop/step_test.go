package loop

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Seed 002's step: claim, step-boundary, model, pre-step, then prepare the
// request before anything enters the context.

func TestAStepRunsItsHookPointsInTheSeedsOrder(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	var points []string
	for _, c := range d.seen {
		switch c := c.(type) {
		case RunHooks:
			points = append(points, string(c.Point))
		case ChooseModel:
			points = append(points, "model")
		case DecidePreStep:
			points = append(points, "pre-step")
		case ShapeRequest:
			points = append(points, "request")
		case CallModel:
			points = append(points, "call")
		}
	}
	require.Equal(t, []string{"step-boundary", "model", "pre-step", "runtime-context", "request", "call"}, points)
}

func TestPreparingTheRequestCommitsNothingUntilTheCallIsMade(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{SystemPrompt: "sys", Tools: []string{"t"}})
	d.runtime = func() string { return "cwd: /srv" }
	d.followup("f1")
	d.resume()
	require.Equal(t, []eventlog.Type{
		eventlog.TypeInboxInserted, eventlog.TypeStatus, eventlog.TypeTurnStart, eventlog.TypeInboxClaimed,
		eventlog.TypeStepStart,
		eventlog.TypeSystemMessage, eventlog.TypeUserMessage, eventlog.TypeRuntimeContext,
		eventlog.TypeRequestHeader, eventlog.TypeRequestContext,
	}, d.types())
	evs := d.events()
	require.Equal(t, eventlog.RequestHeader{Tools: []string{"t"}}, only[eventlog.RequestHeader](evs)[0])
	require.Equal(t, eventlog.RequestContext{Messages: 3, Tokens: d.l.ContextTokens()}, only[eventlog.RequestContext](evs)[0],
		"system, user and runtime context")
}

func TestCancelWhilePreparingTheRequestCommitsNeitherSystemNorUserMessages(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{SystemPrompt: "sys"})
	d.request = func(def signals.CallConfig) signals.CallConfig {
		d.step(Cancel{Cause: "changed my mind", KeepInbox: true}) // a hook's own cancel, mid-preparation
		return def
	}
	d.followup("f1")
	d.resume()
	evs := d.events()
	require.Empty(t, only[eventlog.SystemMessage](evs))
	require.Empty(t, only[eventlog.UserMessage](evs))
	require.Empty(t, seen[CallModel](d))
	end := only[eventlog.TurnEnd](evs)[0]
	require.Equal(t, eventlog.EndCanceled, end.Reason)
	require.Len(t, only[eventlog.StepEnd](evs), 1, "the opened step is closed")
	d.requireOK()
}

func TestSystemPromptRuntimeContextAndHeaderAreRecordedOnlyWhenChanged(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{SystemPrompt: "sys"})
	ctx := "v1"
	d.runtime = func() string { return ctx }
	for i, id := range []string{"f1", "f2", "f3"} {
		if i == 2 {
			ctx = "v2"
		}
		d.followup(id)
		d.resume()
		d.answerModel(answer("ok"))
	}
	evs := d.events()
	require.Len(t, only[eventlog.SystemMessage](evs), 1)
	require.Equal(t, []eventlog.RuntimeContext{{Content: "v1"}, {Content: "v2"}}, only[eventlog.RuntimeContext](evs))
	require.Len(t, only[eventlog.RequestHeader](evs), 1)
	require.Len(t, only[eventlog.RequestContext](evs), 3, "every request says what it carries")
}

func TestPreStepRejectClosesTheTurnAsBlockedWithoutSpendingAStep(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.preStep = func([]Message) Decision { return Reject("policy: forbidden topic") }
	d.followup("f1")
	d.resume()
	evs := d.events()
	end := only[eventlog.TurnEnd](evs)[0]
	require.Equal(t, eventlog.EndBlocked, end.Reason)
	require.Equal(t, "policy: forbidden topic", end.Error)
	require.Empty(t, only[eventlog.StepStart](evs), "no step spent")
	require.Equal(t, eventlog.ProgressDone, eventlog.ConsumedWork(evs)["f1"].Progress, "the claimed batch stays removed")
}

func TestPreStepDecisionIsAuthoritativeAndMayRewriteOrAddMessages(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.preStep = func(batch []Message) Decision {
		batch[0].Content = "rewritten"
		return Enter(append(batch, Message{Content: "note: be brief"}))
	}
	d.followup("f1")
	d.resume()
	call := take[CallModel](d)
	users := only[eventlog.UserMessage](d.events())
	require.Equal(t, []eventlog.UserMessage{{MessageID: "f1", Content: "rewritten"}, {MessageID: "made:1.1", Content: "note: be brief"}}, users)
	var refs []eventlog.Ref
	for _, env := range call.Input.Journal.Envelopes() {
		if env.Type == eventlog.TypeUserMessage {
			refs = append(refs, env.Ref)
		}
	}
	require.Equal(t, []eventlog.Ref{"", ""}, refs, "changed and made content is journaled inline")
}

func TestModelSwitchAppliesFromTheNextProposedStep(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Provider: "p", Model: "m1", Tools: []string{"t"}})
	d.followup("f1")
	d.resume()
	d.step(SelectModel{Selection: signals.Selection{Provider: "p", Model: "m2"}}) // mid-step
	d.answerModel(calls("t"))
	d.finishTool("c0", "r")
	call := take[CallModel](d)
	require.Equal(t, "m2", call.Call.Model)
	starts := only[eventlog.StepStart](d.events())
	require.Equal(t, []string{"m1", "m2"}, []string{starts[0].Model, starts[1].Model})
	require.Equal(t, "m2", only[eventlog.ModelSelected](d.events())[0].Model)
}

func TestTheModelWaterfallChoosesTheStepsSelection(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Model: "base"})
	d.model = func(def signals.Selection) signals.Selection { def.Model, def.Effort = "planner", "high"; return def }
	d.followup("f1")
	d.resume()
	call := take[CallModel](d)
	require.Equal(t, "planner", call.Call.Model)
	require.Equal(t, "high", call.Call.Effort)
	require.Equal(t, "base", d.l.State().Selection.Model, "the agent's selection is unchanged")
	require.Equal(t, "high", only[eventlog.StepStart](d.events())[0].Effort)
}

func TestARequestHookShapesTheCallButCannotMoveItToAnotherStep(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.request = func(def signals.CallConfig) signals.CallConfig {
		def.MaxTokens, def.Turn, def.Step = 77, 9, 9
		return def
	}
	d.followup("f1")
	d.resume()
	call := take[CallModel](d)
	require.Equal(t, 77, call.Call.MaxTokens)
	require.Equal(t, 1, call.Call.Turn)
	require.Equal(t, 1, call.Call.Step)
	require.Equal(t, signals.ModelActivityID(1, 1), call.ActivityID)
}

func TestAHookFailureFailsTheTurnWithItsReasonAndTheAgentGoesOn(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	fail := true
	d.boundary = func() error {
		if fail {
			fail = false
			return errors.New("hook guard failed at step-boundary: boom")
		}
		return nil
	}
	d.followup("f1")
	d.followup("f2")
	d.resume()
	d.answerModel(answer("ok"))
	ends := only[eventlog.TurnEnd](d.events())
	require.Equal(t, eventlog.EndFailed, ends[0].Reason)
	require.Equal(t, "hook guard failed at step-boundary: boom", ends[0].Error)
	require.Equal(t, eventlog.EndCompleted, ends[1].Reason)
}
