package workflows

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

// greeter is a session-start hook that injects context naming its agent
// and counts its runs by agent ID in ran (the test environment does not
// replay, so each count is one run of the hook).
func greeter(ran map[string][]hook.Start) hook.Hook {
	return hook.Hook{Name: "greeter", SessionStart: func(_ workflow.Context, a hook.Agent, s hook.Start) error {
		ran[a.ID()] = append(ran[a.ID()], s)
		return a.Inject("context for " + a.ID())
	}}
}

var (
	broken  = hook.Hook{Name: "broken", SessionStart: func(workflow.Context, hook.Agent, hook.Start) error { return errors.New("store unreachable") }}
	panicky = hook.Hook{Name: "panicky", SessionStart: func(workflow.Context, hook.Agent, hook.Start) error { panic("nil map") }}
)

// contextOfFirstCall is the model context of the first model call: the
// conversation folded from the log up to its first assistant message.
func contextOfFirstCall(t *testing.T, evs []eventlog.Event) []eventlog.Message {
	t.Helper()
	i := slices.IndexFunc(evs, func(e eventlog.Event) bool { return e.Type() == eventlog.TypeAssistantMessage })
	require.Positive(t, i, "a model call was answered")
	return eventlog.ConversationOf(evs[:i])
}

// Session-start hooks run once, before the first turn; the context one
// injects is in the first model call's context; the others' error and
// panic are recorded and stop nothing: the turn runs and completes.
func TestSessionStartRunsOnceBeforeTheFirstTurnAndErrorsDoNotStopTheAgent(t *testing.T) {
	ran := map[string][]hook.Start{}
	h := newHarnessWith(t, Config{Hooks: []hook.Hook{broken, greeter(ran), panicky}}, byStep(nil))
	evs := h.run(signals.AgentOptions{Hooks: []string{"broken", "greeter", "panicky"}}, "hello", time.Hour)

	id := "default-test-workflow-id"
	require.Len(t, ran[id], 1, "once")
	require.Equal(t, &signals.Message{ID: "m0", Content: "hello"}, ran[id][0].First)
	require.Nil(t, ran[id][0].Parent)
	require.Equal(t, []eventlog.Type{eventlog.TypeInboxInserted, eventlog.TypeInboxInserted, eventlog.TypeSessionStarted,
		eventlog.TypeStatus, eventlog.TypeTurnStart}, types(evs)[:5], "the hooks ran before the first turn")
	started := only[eventlog.SessionStarted](evs)
	require.Equal(t, []eventlog.SessionStarted{{Hooks: []string{"broken", "greeter", "panicky"}, Errors: []string{
		"hook broken failed at session-start: store unreachable", "hook panicky panicked at session-start: nil map"}}}, started)
	require.Equal(t, []eventlog.Message{{Role: eventlog.RoleUser, Content: "context for " + id},
		{Role: eventlog.RoleUser, Content: "hello"}}, contextOfFirstCall(t, evs))
	ends := only[eventlog.TurnEnd](evs)
	require.Len(t, ends, 1)
	require.Equal(t, eventlog.EndCompleted, ends[0].Reason, "the agent went on")
	require.Equal(t, 1, eventlog.ConsumedWork(evs)[only[eventlog.InboxInserted](evs)[1].MessageID].Turn,
		"the injected context was claimed by the first turn, once")
}

// After Continue-As-New the next run does not run the hooks again: the
// seed says the session started, and the context rides in the seed's
// conversation.
func TestSessionStartDoesNotRunAgainAfterContinueAsNew(t *testing.T) {
	ran := map[string][]hook.Start{}
	cfg := Config{MaxRunTurns: 1, Hooks: []hook.Hook{greeter(ran)}}
	h := newHarnessWith(t, cfg, byStep(nil))
	h.env.ExecuteWorkflow(signals.AgentWorkflow, signals.AgentInput{Options: signals.AgentOptions{Hooks: []string{"greeter"}},
		First: &signals.Message{ID: "m0", Content: "one"}})
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, h.env.GetWorkflowError(), &can)
	require.Len(t, only[eventlog.SessionStarted](h.log()), 1)
	var next signals.AgentInput
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.NotNil(t, next.Seed)
	require.True(t, next.Seed.State.SessionStarted, "the seed carries the start")

	h2 := newHarnessWith(t, cfg, byStep(nil))
	h2.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "m1", Content: "two"})
	h2.env.ExecuteWorkflow(signals.AgentWorkflow, next)
	require.ErrorAs(t, h2.env.GetWorkflowError(), &can, "the second run continues as new after its turn")
	evs := h2.log()
	require.Len(t, ran["default-test-workflow-id"], 1, "the hook ran in the first run only")
	require.Empty(t, only[eventlog.SessionStarted](evs), "nor recorded again")
	require.Equal(t, eventlog.EndCompleted, only[eventlog.TurnEnd](evs)[0].Reason)
}

// A child agent that enables the hook runs it once too, knowing its parent.
func TestSessionStartRunsInEveryAgentChildrenToo(t *testing.T) {
	ran := map[string][]hook.Start{}
	h := newHarnessWith(t, Config{Hooks: []hook.Hook{greeter(ran)}, DefaultHooks: []string{"greeter"}},
		func(in signals.ModelInput) (signals.ModelOutput, error) {
			switch {
			case !isParent(in):
				return answer("the child's answer"), nil
			case in.Call.Step == 1:
				return call(signals.SpawnTool, `{"task":"find it","tools":["fast"]}`), nil
			}
			return answer("parent done"), nil
		})
	evs := h.run(signals.AgentOptions{Tools: []string{signals.SpawnTool, "fast"}}, "delegate", time.Hour)
	require.Len(t, only[eventlog.SessionStarted](evs), 1)
	child := only[eventlog.ChildStarted](evs)[0].ChildID
	require.Len(t, ran, 2, "the parent and its child")
	require.Len(t, ran[child], 1)
	require.Equal(t, "default-test-workflow-id", ran[child][0].Parent.ID)
	require.Equal(t, "find it", ran[child][0].First.Content, "a child starts with its task")
}
