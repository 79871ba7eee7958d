package workflows

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

// One test per rule of the seed's machine (issue 3), named for the rule.

func withHooks(hooks ...hook.Hook) Config {
	cfg := Config{Hooks: hooks}
	for _, h := range hooks {
		cfg.DefaultHooks = append(cfg.DefaultHooks, h.Name)
	}
	return cfg
}

func failWith(kind eventlog.FailureKind, retryAfter time.Duration) error {
	f := eventlog.Failure{Kind: kind, Message: string(kind) + " from provider", RetryAfter: retryAfter}
	return temporal.NewApplicationErrorWithOptions(f.Message, string(kind),
		temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{f}})
}

func TestPreStepRejectClosesTheTurnAsBlockedWithoutSpendingAStep(t *testing.T) {
	guard := hook.Hook{Name: "guard", PreStep: func(_ workflow.Context, _ hook.Agent, batch []hook.Message, next func() (hook.Decision, error)) (hook.Decision, error) {
		for _, m := range batch {
			if strings.Contains(m.Content, "forbidden") {
				return hook.Reject("policy: forbidden topic"), nil
			}
		}
		return next()
	}}
	h := newHarnessWith(t, withHooks(guard), byStep(nil))
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "ok", Content: "allowed"})
	evs := h.run(tools, "a forbidden question", time.Hour)

	ends := only[eventlog.TurnEnd](evs)
	require.Equal(t, eventlog.EndBlocked, ends[0].Reason)
	require.Equal(t, "policy: forbidden topic", ends[0].Error)
	starts := only[eventlog.StepStart](evs)
	require.Len(t, starts, 1, "the blocked turn spent no step")
	require.Equal(t, 2, starts[0].Turn)
	work := eventlog.ConsumedWork(evs)
	require.Equal(t, eventlog.ProgressDone, work["m0"].Progress, "the claimed batch stays removed")
	require.Equal(t, eventlog.EndBlocked, work["m0"].TurnEnd)
}

func TestPreStepDecisionIsAuthoritativeAndMayAddMessages(t *testing.T) {
	annotate := hook.Hook{Name: "annotate", PreStep: func(_ workflow.Context, _ hook.Agent, batch []hook.Message, next func() (hook.Decision, error)) (hook.Decision, error) {
		d, err := next()
		if len(batch) > 0 {
			d.Messages = append(d.Messages, hook.Message{Content: "note: be brief"})
		}
		return d, err
	}}
	h := newHarnessWith(t, withHooks(annotate), byStep(nil))
	evs := h.run(tools, "question", time.Hour)
	users := only[eventlog.UserMessage](evs)
	require.Len(t, users, 2)
	require.Equal(t, "question", users[0].Content)
	require.Equal(t, "note: be brief", users[1].Content)
}

func TestRetryActionOpensRetryTurnsAndOnlyTheTerminalTurnSettles(t *testing.T) {
	h := newHarnessWith(t, withHooks(hook.Retry()), func(in signals.ModelInput) (signals.ModelOutput, error) {
		if in.Call.Turn < 3 {
			return signals.ModelOutput{}, failWith(eventlog.FailureServer, 0)
		}
		return answer("finally"), nil
	})
	evs := h.run(tools, "go", time.Hour)

	starts := only[eventlog.TurnStart](evs)
	require.Equal(t, []eventlog.TurnStart{{Turn: 1}, {Turn: 2, RetryOf: 1}, {Turn: 3, RetryOf: 2}}, starts)
	ends := only[eventlog.TurnEnd](evs)
	require.Equal(t, []eventlog.EndReason{eventlog.EndFailed, eventlog.EndFailed, eventlog.EndCompleted},
		[]eventlog.EndReason{ends[0].Reason, ends[1].Reason, ends[2].Reason})
	var statuses []eventlog.Status
	for _, s := range only[eventlog.StatusChanged](evs) {
		statuses = append(statuses, s.Status)
	}
	require.Equal(t, []eventlog.Status{eventlog.StatusRunning, eventlog.StatusIdle}, statuses, "no idle between retry turns")
	settled := eventlog.Settlements(evs)
	require.Equal(t, []eventlog.Settlement{{Turn: 3, Reason: eventlog.EndCompleted, Retries: 2}}, settled)
	require.Equal(t, eventlog.ProgressDone, eventlog.ConsumedWork(evs)["m0"].Progress)
	require.Equal(t, 3, eventlog.ConsumedWork(evs)["m0"].Turn, "the message follows its retry chain")
}

func TestRetryBackoffWaitsOnDurableTimersAndHonoursRetryAfter(t *testing.T) {
	h := newHarnessWith(t, withHooks(hook.Retry()), func(in signals.ModelInput) (signals.ModelOutput, error) {
		switch in.Call.Turn {
		case 1, 2:
			return signals.ModelOutput{}, failWith(eventlog.FailureOverloaded, 0)
		case 3:
			return signals.ModelOutput{}, failWith(eventlog.FailureRateLimit, 30*time.Second)
		}
		return answer("ok"), nil
	})
	evs := h.run(tools, "go", time.Hour)

	var waits []time.Duration
	var failedAt time.Time
	for i, e := range evs {
		switch e := e.(type) {
		case eventlog.AssistantAttempt:
			failedAt = h.at0(i)
		case eventlog.TurnStart:
			if e.RetryOf > 0 {
				waits = append(waits, h.at0(i).Sub(failedAt))
			}
		}
	}
	require.Equal(t, []time.Duration{time.Second, 2 * time.Second, 30 * time.Second}, waits,
		"1s, 2s exponential, then the provider's retry-after")
}

func TestNonRetryableFailureIsTerminalAfterOneTurn(t *testing.T) {
	h := newHarnessWith(t, withHooks(hook.Retry()), func(signals.ModelInput) (signals.ModelOutput, error) {
		return signals.ModelOutput{}, failWith(eventlog.FailureAuth, 0)
	})
	evs := h.run(tools, "go", time.Hour)
	require.Len(t, only[eventlog.TurnStart](evs), 1)
	require.Equal(t, eventlog.EndFailed, only[eventlog.TurnEnd](evs)[0].Reason)
}

func TestRetryPolicyBoundsTheChainPerAgent(t *testing.T) {
	h := newHarnessWith(t, withHooks(hook.Retry()), func(signals.ModelInput) (signals.ModelOutput, error) {
		return signals.ModelOutput{}, failWith(eventlog.FailureNetwork, 0)
	})
	opts := tools
	opts.Retry = &signals.RetryPolicy{MaxRetries: 2, Initial: time.Second}
	evs := h.run(opts, "go", time.Hour)
	require.Len(t, only[eventlog.TurnStart](evs), 3, "the first turn and two retries")
	require.Len(t, eventlog.Settlements(evs), 1)
}

func TestExclusiveCallIsABarrierInARollingPoolOfTwo(t *testing.T) {
	starts := map[string]time.Duration{}
	cfg := Config{ToolModes: map[string]signals.ToolMode{"x": signals.ToolExclusive}}
	h := newHarnessWith(t, cfg, byStep(map[string]signals.ModelOutput{"1.1": calls("a", "b", "c", "x", "d", "e")}))
	t0 := h.env.Now()
	for name, d := range map[string]time.Duration{"a": 3 * time.Minute, "b": time.Minute, "c": time.Minute, "x": time.Minute, "d": 2 * time.Minute, "e": time.Minute} {
		h.recordingTool(name, d, func(at time.Time) { starts[name] = at.Sub(t0) })
	}
	opts := signals.AgentOptions{Tools: []string{"a", "b", "c", "x", "d", "e"}, MaxParallelTools: 2}
	evs := h.run(opts, "go", time.Hour)

	require.Equal(t, map[string]time.Duration{
		"a": 0, "b": 0, // the pool of two
		"c": time.Minute,                           // rolls in when b finishes, before a
		"x": 3 * time.Minute,                       // waits for a, b and c
		"d": 4 * time.Minute, "e": 4 * time.Minute, // nothing passes x until it is done
	}, starts)
	var order []string
	for _, r := range only[eventlog.ToolResult](evs) {
		order = append(order, r.Name)
	}
	require.Equal(t, []string{"a", "b", "c", "x", "d", "e"}, order, "results in model order")
}

func TestSequentialCallsRunOneAtATimeInModelOrder(t *testing.T) {
	starts := map[string]time.Duration{}
	cfg := Config{ToolModes: map[string]signals.ToolMode{"s1": signals.ToolSequential, "s2": signals.ToolSequential}}
	h := newHarnessWith(t, cfg, byStep(map[string]signals.ModelOutput{"1.1": calls("s1", "p", "s2")}))
	t0 := h.env.Now()
	for name, d := range map[string]time.Duration{"s1": 2 * time.Minute, "p": time.Minute, "s2": time.Minute} {
		h.recordingTool(name, d, func(at time.Time) { starts[name] = at.Sub(t0) })
	}
	h.run(signals.AgentOptions{Tools: []string{"s1", "p", "s2"}}, "go", time.Hour)
	require.Equal(t, map[string]time.Duration{"s1": 0, "p": 0, "s2": 2 * time.Minute}, starts)
}

func TestModelSwitchRequestedMidStepAppliesOnlyFromTheNextStep(t *testing.T) {
	var models []string
	h := newHarness(t, func(in signals.ModelInput) (signals.ModelOutput, error) {
		models = append(models, in.Call.Model)
		if in.Call.Step == 1 {
			return calls("fast"), nil
		}
		return answer("done"), nil
	}, time.Minute)
	h.tool("fast", time.Second)
	h.signal(30*time.Second, signals.SelectModelSignal.Name, signals.Selection{Provider: "openai", Model: "big"})
	opts := tools
	opts.Model = "small"
	evs := h.run(opts, "go", time.Hour)

	require.Equal(t, []string{"small", "big"}, models, "the step in flight keeps its model")
	steps := only[eventlog.StepStart](evs)
	require.Equal(t, "small", steps[0].Model)
	require.Equal(t, "big", steps[1].Model)
}

func TestUnchangedSystemPromptIsNotRecordedAgain(t *testing.T) {
	h := newHarness(t, byStep(nil))
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "again"})
	opts := tools
	opts.SystemPrompt = "You are terse."
	opts.Prompt = &signals.Prompt{Sections: []signals.Section{{Name: "style", Text: "Use {{tone}} words."}}, Variables: map[string]string{"tone": "plain"}}
	evs := h.run(opts, "go", time.Hour)
	sys := only[eventlog.SystemMessage](evs)
	require.Len(t, sys, 1, "two turns, one unchanged prompt")
	require.Equal(t, "You are terse.\n\nUse plain words.", sys[0].Content)
}

func TestChangedSystemPromptIsRecordedAtTheStepThatChangedIt(t *testing.T) {
	h := newHarness(t, byStep(nil))
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "again"})
	opts := tools
	opts.Prompt = &signals.Prompt{Sections: []signals.Section{{Name: "turn", Text: "This is turn {{turn}} of agent {{agent_id}}."}}}
	evs := h.run(opts, "go", time.Hour)
	sys := only[eventlog.SystemMessage](evs)
	require.Len(t, sys, 2)
	require.Contains(t, sys[1].Content, "This is turn 2 of agent")
}

func TestRuntimeContextIsAdmittedOnlyWhenChangedAndNeverOpensAStep(t *testing.T) {
	version := "v1"
	ctxHook := hook.Hook{Name: "context", RuntimeContext: func(workflow.Context, hook.Agent) (string, error) {
		return "deploy " + version, nil
	}}
	h := newHarnessWith(t, withHooks(ctxHook), byStep(nil))
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "again"})
	h.at(2*time.Minute, func() { version = "v2" })
	h.signal(3*time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f2", Content: "and again"})
	evs := h.run(tools, "go", time.Hour)

	ctxs := only[eventlog.RuntimeContext](evs)
	require.Equal(t, []eventlog.RuntimeContext{{Content: "deploy v1"}, {Content: "deploy v2"}}, ctxs)
	require.Len(t, only[eventlog.TurnStart](evs), 3, "only messages open turns")
	// Admitted after the step's accepted messages.
	i := indexOf(evs, func(e eventlog.Event) bool { _, ok := e.(eventlog.RuntimeContext); return ok })
	_, afterUser := evs[i-1].(eventlog.UserMessage)
	require.True(t, afterUser)
}

func TestTurnStoppingHookThatSteersTakesOneMoreStep(t *testing.T) {
	reviewed := false
	review := hook.Hook{Name: "review", TurnStopping: func(_ workflow.Context, a hook.Agent) error {
		if reviewed {
			return nil
		}
		reviewed = true
		return a.Steer("double-check your answer")
	}}
	h := newHarnessWith(t, withHooks(review), byStep(nil))
	evs := h.run(tools, "go", time.Hour)
	require.Len(t, only[eventlog.TurnStart](evs), 1)
	require.Len(t, only[eventlog.StepStart](evs), 2)
	users := only[eventlog.UserMessage](evs)
	require.Equal(t, "double-check your answer", users[1].Content)
	require.Equal(t, eventlog.EndCompleted, only[eventlog.TurnEnd](evs)[0].Reason)
}

func TestHookPanicFailsTheTurnWithARecordedReasonAndTheAgentGoesOn(t *testing.T) {
	calls := 0
	boom := hook.Hook{Name: "boom", Request: func(_ workflow.Context, _ hook.Agent, next func() (signals.CallConfig, error)) (signals.CallConfig, error) {
		calls++
		if calls == 1 {
			panic("nil map")
		}
		return next()
	}}
	h := newHarnessWith(t, withHooks(boom), byStep(nil))
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "again"})
	evs := h.run(tools, "go", time.Hour)
	ends := only[eventlog.TurnEnd](evs)
	require.Equal(t, eventlog.EndFailed, ends[0].Reason)
	require.Contains(t, ends[0].Error, "hook boom panicked at request: nil map")
	require.Equal(t, eventlog.EndCompleted, ends[1].Reason)
}

func TestHookErrorFailsTheTurnWithARecordedReason(t *testing.T) {
	bad := hook.Hook{Name: "bad", StepBoundary: func(workflow.Context, hook.Agent) error { return errors.New("quota store down") }}
	h := newHarnessWith(t, withHooks(bad), byStep(nil))
	evs := h.run(tools, "go", time.Hour)
	end := only[eventlog.TurnEnd](evs)[0]
	require.Equal(t, eventlog.EndFailed, end.Reason)
	require.Equal(t, "hook bad failed at step-boundary: quota store down", end.Error)
	require.Empty(t, only[eventlog.StepStart](evs))
}

func TestWaterfallHookThatDoesNotCallNextShortCircuitsDownstream(t *testing.T) {
	downstream := false
	first := hook.Hook{Name: "first", Model: func(workflow.Context, hook.Agent, func() (signals.Selection, error)) (signals.Selection, error) {
		return signals.Selection{Provider: "openai", Model: "pinned"}, nil
	}}
	second := hook.Hook{Name: "second", Model: func(_ workflow.Context, _ hook.Agent, next func() (signals.Selection, error)) (signals.Selection, error) {
		downstream = true
		return next()
	}}
	var got string
	h := newHarnessWith(t, withHooks(first, second), func(in signals.ModelInput) (signals.ModelOutput, error) {
		got = in.Call.Model
		return answer("ok"), nil
	})
	h.run(tools, "go", time.Hour)
	require.False(t, downstream)
	require.Equal(t, "pinned", got)
}

func TestRequestHookReplacesTheFrozenCallConfigurationButNotTheStep(t *testing.T) {
	shape := hook.Hook{Name: "shape", Request: func(_ workflow.Context, _ hook.Agent, next func() (signals.CallConfig, error)) (signals.CallConfig, error) {
		cfg, err := next()
		cfg.MaxTokens, cfg.Effort, cfg.Step = 77, "high", 99
		return cfg, err
	}}
	var got signals.CallConfig
	h := newHarnessWith(t, withHooks(shape), func(in signals.ModelInput) (signals.ModelOutput, error) {
		got = in.Call
		return answer("ok"), nil
	})
	h.run(tools, "go", time.Hour)
	require.Equal(t, 77, got.MaxTokens)
	require.Equal(t, "high", got.Effort)
	require.Equal(t, 1, got.Step)
}

func TestToolPreHooksRunInModelOrderAndPostHooksSeeResultsInModelOrder(t *testing.T) {
	var pre, post []string
	audit := hook.Hook{Name: "audit",
		ToolPre: func(_ workflow.Context, _ hook.Agent, c hook.Call) error {
			pre = append(pre, c.Name)
			if c.Name == "mid" {
				return hook.Deny("mid needs approval")
			}
			return nil
		},
		ToolPost: func(_ workflow.Context, _ hook.Agent, c hook.Call, r signals.ToolOutput) (signals.ToolOutput, error) {
			post = append(post, c.Name)
			r.Content = strings.ToUpper(r.Content)
			return r, nil
		},
	}
	h := newHarnessWith(t, withHooks(audit), byStep(map[string]signals.ModelOutput{"1.1": calls("slow", "mid", "fast")}))
	h.tool("slow", 3*time.Minute)
	h.tool("fast", time.Second)
	evs := h.run(tools, "go", time.Hour)

	require.Equal(t, []string{"slow", "mid", "fast"}, pre)
	require.Equal(t, []string{"slow", "fast"}, post, "a denied call runs no post hooks")
	results := only[eventlog.ToolResult](evs)
	require.Equal(t, "SLOW OK C0", results[0].Content)
	require.True(t, results[1].IsError)
	require.Equal(t, "tool call denied: mid needs approval", results[1].Content)
	require.Equal(t, "FAST OK C2", results[2].Content)
}

func TestStepToolSetIsResolvedOncePerStepAndDisposedAtStepEnd(t *testing.T) {
	var seen [][]hook.Tool
	probe := hook.Hook{Name: "probe",
		Request: func(_ workflow.Context, a hook.Agent, next func() (signals.CallConfig, error)) (signals.CallConfig, error) {
			seen = append(seen, a.Step().Tools)
			return next()
		},
		TurnStopping: func(_ workflow.Context, a hook.Agent) error {
			seen = append(seen, a.Step().Tools)
			return nil
		},
	}
	cfg := withHooks(probe)
	cfg.ToolModes = map[string]signals.ToolMode{"slow": signals.ToolSequential}
	h := newHarnessWith(t, cfg, byStep(nil))
	h.run(signals.AgentOptions{Tools: []string{"fast", "slow"}}, "go", time.Hour)
	require.Equal(t, [][]hook.Tool{
		{{Name: "fast", Mode: signals.ToolParallel}, {Name: "slow", Mode: signals.ToolSequential}},
		nil,
	}, seen)
}

func TestToolActivityThatFailsForGoodBecomesAnErrorResult(t *testing.T) {
	h := newHarness(t, byStep(map[string]signals.ModelOutput{"1.1": calls("fast")}))
	h.failingTool("fast", temporal.NewNonRetryableApplicationError("tool fast call c0: disk full", signals.ToolFailure, nil))
	evs := h.run(tools, "go", time.Hour)
	r := only[eventlog.ToolResult](evs)[0]
	require.True(t, r.IsError)
	require.Contains(t, r.Content, "disk full")
	require.Equal(t, eventlog.EndCompleted, only[eventlog.TurnEnd](evs)[0].Reason)
}

func TestUnregisteredHookFailsTheTurnSayingWhich(t *testing.T) {
	h := newHarness(t, byStep(nil))
	opts := tools
	opts.Hooks = []string{"approval"}
	evs := h.run(opts, "go", time.Hour)
	end := only[eventlog.TurnEnd](evs)[0]
	require.Equal(t, eventlog.EndFailed, end.Reason)
	require.Equal(t, "hooks [approval] are not registered on this worker", end.Error)
}

func TestEmptyHookListDisablesTheDefaultHooks(t *testing.T) {
	h := newHarnessWith(t, withHooks(hook.Retry()), func(signals.ModelInput) (signals.ModelOutput, error) {
		return signals.ModelOutput{}, failWith(eventlog.FailureServer, 0)
	})
	opts := tools
	opts.Hooks = []string{} // survives the workflow input's JSON as "no hooks"
	evs := h.run(opts, "go", time.Hour)
	require.Len(t, only[eventlog.TurnStart](evs), 1, "no retry turn without the retry hook")
}

func withUsage(out signals.ModelOutput, tokens int64) signals.ModelOutput {
	out.Usage = eventlog.Usage{InputTokens: tokens / 2, OutputTokens: tokens / 2}
	return out
}

func TestTokenBudgetStopsTheTurnBeforeTheNextModelCallWithARecordedReason(t *testing.T) {
	calls := 0
	h := newHarness(t, func(signals.ModelInput) (signals.ModelOutput, error) {
		calls++
		return withUsage(answer("ok"), 600), nil
	})
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "two"})
	h.signal(2*time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f2", Content: "three"})
	opts := tools
	opts.Budget = &signals.Budget{MaxTokens: 1000}
	evs := h.run(opts, "one", time.Hour)

	require.Equal(t, 2, calls, "no model call once the budget is spent")
	end := only[eventlog.TurnEnd](evs)[2]
	require.Equal(t, eventlog.EndBudget, end.Reason)
	require.Equal(t, "token budget exhausted: 1200 of 1000 tokens used", end.Error)
	require.Equal(t, eventlog.EndBudget, eventlog.ConsumedWork(evs)["f2"].TurnEnd, "the message is answered, not retried forever")
}

func TestCostBudgetCountsCachedTokensAtTheirPrice(t *testing.T) {
	h := newHarness(t, func(signals.ModelInput) (signals.ModelOutput, error) {
		out := answer("ok")
		out.Usage = eventlog.Usage{InputTokens: 1_000_000, CachedTokens: 800_000, OutputTokens: 100_000}
		return out, nil
	})
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "again"})
	opts := tools
	// 0.2M fresh × 3 + 0.8M cached × 0.3 + 0.1M out × 15 = 0.6 + 0.24 + 1.5 = 2.34 a call.
	opts.Budget = &signals.Budget{MaxCost: 2, Prices: signals.Prices{Input: 3, Cached: 0.3, Output: 15}}
	evs := h.run(opts, "go", time.Hour)
	end := only[eventlog.TurnEnd](evs)[1]
	require.Equal(t, eventlog.EndBudget, end.Reason)
	require.Equal(t, "cost budget exhausted: 2.3400 of 2.0000 spent", end.Error)
}

func TestTurnBudgetHookCancelsARunawayTurnAtTurnStopping(t *testing.T) {
	keepGoing := hook.Hook{Name: "keep-going", TurnStopping: func(_ workflow.Context, a hook.Agent) error {
		return a.Steer("keep going")
	}}
	h := newHarnessWith(t, withHooks(keepGoing, hook.TurnBudget()), byStep(nil))
	opts := tools
	opts.Budget = &signals.Budget{MaxSteps: 3}
	evs := h.run(opts, "go", time.Hour)
	require.Len(t, only[eventlog.StepStart](evs), 3)
	end := only[eventlog.TurnEnd](evs)[0]
	require.Equal(t, eventlog.EndCanceled, end.Reason)
	require.Equal(t, "turn budget exhausted: 3 of 3 steps in turn 1", end.Error)
	require.Empty(t, h.status().NextStep, "the steering that would continue it is discarded")
}

func TestTurnBudgetHookRejectsTurnsPastTheBudget(t *testing.T) {
	h := newHarnessWith(t, withHooks(hook.TurnBudget()), byStep(nil))
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "two"})
	opts := tools
	opts.Budget = &signals.Budget{MaxTurns: 1}
	evs := h.run(opts, "one", time.Hour)
	ends := only[eventlog.TurnEnd](evs)
	require.Equal(t, eventlog.EndCompleted, ends[0].Reason)
	require.Equal(t, eventlog.EndBlocked, ends[1].Reason)
	require.Equal(t, "turn budget exhausted: 1 turns allowed", ends[1].Error)
}

func TestTurnBudgetLetsATurnThatStopsByItselfComplete(t *testing.T) {
	h := newHarnessWith(t, withHooks(hook.TurnBudget()), byStep(map[string]signals.ModelOutput{"1.1": calls("fast")}))
	h.tool("fast", time.Second)
	opts := tools
	opts.Budget = &signals.Budget{MaxSteps: 2}
	evs := h.run(opts, "go", time.Hour)
	require.Equal(t, eventlog.EndCompleted, only[eventlog.TurnEnd](evs)[0].Reason)
}

func TestFastToolsRunAsLocalActivitiesAndTheirResultsReferToTheMarker(t *testing.T) {
	cfg := Config{LocalTools: []string{"fast"}}
	h := newHarnessWith(t, cfg, byStep(map[string]signals.ModelOutput{"1.1": calls("fast", "slow")}))
	h.tool("fast", time.Second)
	h.tool("slow", time.Minute)
	evs := h.run(tools, "go", time.Hour)
	results := only[eventlog.ToolResult](evs)
	require.Equal(t, "fast ok c0", results[0].Content)
	require.Equal(t, "slow ok c1", results[1].Content)
	refs := map[eventlog.Type][]eventlog.Ref{}
	for _, env := range h.envelopes() {
		refs[env.Type] = append(refs[env.Type], env.Ref)
	}
	require.Equal(t, []eventlog.Ref{"la:c0", "act:tool-1-1-1"}, refs[eventlog.TypeToolResult])
	require.Equal(t, []eventlog.Ref{"", "in:tool-1-1-1"}, refs[eventlog.TypeToolCall],
		"a local activity's input is not in history: its call event is journaled whole")
}

// A model switch signalled just before a followup update, both in one
// workflow task, applies to the followup's turn: the SDK runs the update's
// handler first, and the handler hands the earlier signal to the loop
// before it acts, so the log keeps history's order.
func TestAModelSwitchSignalledBeforeAFollowupUpdateAppliesToItsTurn(t *testing.T) {
	var models []string
	h := newHarness(t, func(in signals.ModelInput) (signals.ModelOutput, error) {
		models = append(models, in.Call.Model)
		return answer("done"), nil
	})
	var accepted error
	h.at(time.Minute, func() {
		h.env.SignalWorkflowSkippingWorkflowTask(signals.SelectModelSignal.Name, signals.Selection{Model: "big"})
		h.env.UpdateWorkflow(signals.FollowupUpdate.Name, "u1", &testsuite.TestUpdateCallback{
			OnAccept: func() {}, OnReject: func(err error) { accepted = err }, OnComplete: func(_ any, err error) { accepted = err },
		}, signals.Message{ID: "f1", Content: "again"})
	})
	opts := tools
	opts.Model = "small"
	evs := h.run(opts, "go", time.Hour)
	require.NoError(t, accepted)

	require.Equal(t, []string{"small", "big"}, models)
	steps := only[eventlog.StepStart](evs)
	require.Len(t, steps, 2)
	require.Equal(t, "big", steps[1].Model)
	sel := indexOf(evs, func(e eventlog.Event) bool { _, ok := e.(eventlog.ModelSelected); return ok })
	ins := indexOf(evs, func(e eventlog.Event) bool { in, ok := e.(eventlog.InboxInserted); return ok && in.MessageID == "f1" })
	require.Positive(t, sel)
	require.Less(t, sel, ins, "the switch is recorded before the followup, as history has them")
}
