package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

var offered = Config{Providers: []string{"openai", "scripted"}}

func TestTheSelectModelUpdateRefusesAProviderTheWorkerLacksWithATypedError(t *testing.T) {
	h := newHarnessWith(t, offered, byStep(nil))
	var refused, accepted error = errors.New("not answered"), errors.New("not answered")
	h.update(time.Minute, signals.SelectModelUpdate.Name, "u1", signals.Selection{Provider: "nope", Model: "x"}, &refused)
	h.update(2*time.Minute, signals.SelectModelUpdate.Name, "u2", signals.Selection{Provider: "openai", Model: "big"}, &accepted)
	evs := h.run(signals.AgentOptions{Provider: "scripted", Model: "small"}, "go", time.Hour)

	var app *temporal.ApplicationError
	require.True(t, errors.As(refused, &app), "%v", refused)
	require.Equal(t, signals.RejectSelection, app.Type())
	require.Contains(t, app.Error(), `provider "nope" is not offered`)
	require.NoError(t, accepted)
	sel := only[eventlog.ModelSelected](evs)
	require.Len(t, sel, 1, "a refused update reaches no history")
	require.Equal(t, eventlog.Selection{Provider: "openai", Model: "big"}, sel[0].Selection)
}

func TestARefusedSelectModelSignalIsRecordedAsRefusedAndTheAgentKeepsItsModel(t *testing.T) {
	var models []string
	h := newHarnessWith(t, offered, func(in signals.ModelInput) (signals.ModelOutput, error) {
		models = append(models, in.Call.Provider+"/"+in.Call.Model)
		return answer("done"), nil
	})
	h.signal(time.Minute, signals.SelectModelSignal.Name, signals.Selection{Provider: "nope"})
	h.signal(2*time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "again"})
	evs := h.run(signals.AgentOptions{Provider: "scripted", Model: "small"}, "go", time.Hour)

	sel := only[eventlog.ModelSelected](evs)
	require.Len(t, sel, 1)
	require.Equal(t, "nope", sel[0].Provider)
	require.Contains(t, sel[0].Refused, `provider "nope" is not offered`)
	require.Equal(t, []string{"scripted/small", "scripted/small"}, models, "the next turn keeps its model")
}

func TestTheProviderAndModelTheWorkerResolvedAreRecordedOnceAndUsedFromThenOn(t *testing.T) {
	var asked []string
	h := newHarnessWith(t, offered, func(in signals.ModelInput) (signals.ModelOutput, error) {
		asked = append(asked, in.Call.Provider+"/"+in.Call.Model)
		out := answer("done")
		out.Provider, out.Model = "openai", "gpt-4o-mini"
		return out, nil
	})
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "again"})
	evs := h.run(signals.AgentOptions{}, "go", time.Hour)

	sel := only[eventlog.ModelSelected](evs)
	require.Len(t, sel, 1, "resolved the first time only")
	require.True(t, sel[0].Resolved)
	require.Equal(t, eventlog.Selection{Provider: "openai", Model: "gpt-4o-mini"}, sel[0].Selection)
	require.Equal(t, []string{"/", "openai/gpt-4o-mini"}, asked, "the agent keeps what it was resolved to")
}

func TestAStepAHookGaveAnotherModelResolvesNothing(t *testing.T) {
	h := newHarnessWith(t, offered, func(in signals.ModelInput) (signals.ModelOutput, error) {
		out := answer("done")
		out.Provider, out.Model = "scripted", "given"
		return out, nil
	})
	evs := h.run(signals.AgentOptions{Provider: "scripted", Model: "given"}, "go", time.Hour)
	require.Empty(t, only[eventlog.ModelSelected](evs), "an explicit selection is not resolved again")
}

// The model recorded is the one the worker's defaults asked for, not the
// dated snapshot the provider says answered: the agent keeps asking for
// the model it was given, and ls --model finds it by that name.
func TestTheResolvedModelIsTheOneAskedForNotTheSnapshotThatAnswered(t *testing.T) {
	var asked []string
	h := newHarnessWith(t, offered, func(in signals.ModelInput) (signals.ModelOutput, error) {
		asked = append(asked, in.Call.Provider+"/"+in.Call.Model)
		out := answer("done")
		out.Provider, out.Model, out.DefaultModel = "openai", "gpt-4o-mini-2024-07-18", "gpt-4o-mini"
		return out, nil
	})
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f1", Content: "again"})
	evs := h.run(signals.AgentOptions{}, "go", time.Hour)

	sel := only[eventlog.ModelSelected](evs)
	require.Len(t, sel, 1)
	require.Equal(t, eventlog.Selection{Provider: "openai", Model: "gpt-4o-mini"}, sel[0].Selection)
	require.Equal(t, []string{"/", "openai/gpt-4o-mini"}, asked)
}
