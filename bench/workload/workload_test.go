package workload

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/providerfx"
	"github.com/tetherdev/tether/fx/toolfx"
)

func TestModelAsksForTheToolThenAnswers400Characters(t *testing.T) {
	offered := []llm.ToolSpec{{Name: Fetch}}
	user := eventlog.Message{Role: eventlog.RoleUser, Content: "turn 1"}
	first, err := Model{}.Complete(context.Background(), llm.Request{Messages: []eventlog.Message{user}, Tools: offered})
	require.NoError(t, err)
	require.Equal(t, eventlog.FinishToolCalls, first.FinishReason)
	require.Len(t, first.ToolCalls, 1)
	require.Equal(t, Fetch, first.ToolCalls[0].Name)

	result := eventlog.Message{Role: eventlog.RoleTool, Content: "2 KB"}
	assistant := eventlog.Message{Role: eventlog.RoleAssistant, ToolCalls: first.ToolCalls}
	second, err := Model{}.Complete(context.Background(), llm.Request{Messages: []eventlog.Message{user, assistant, result}, Tools: offered})
	require.NoError(t, err)
	require.Equal(t, eventlog.FinishStop, second.FinishReason)
	require.Empty(t, second.ToolCalls)
	require.Len(t, second.Text, AnswerChars)
}

func TestToolReturns2KBThatDependOnlyOnTheCall(t *testing.T) {
	for _, local := range []bool{false, true} {
		tool := Tool(Fetch, local)
		require.Equal(t, local, tool.Local)
		a, err := tool.Run(context.Background(), tools.Call{CallID: "call_1"})
		require.NoError(t, err)
		require.Len(t, a.Content, ResultBytes)
		again, err := tool.Run(context.Background(), tools.Call{CallID: "call_1"})
		require.NoError(t, err)
		require.Equal(t, a, again, "a retried call answers as the first")
	}
}

// Option composes with the worker's own modules: the workload model joins
// the configured providers (the default stays) and fetch joins the tools.
func TestOptionAddsTheModelBesideTheWorkersProvidersAndTheFetchTool(t *testing.T) {
	var providers providerfx.Providers
	var reg *tools.Registry
	cfg, err := configfx.Load(nil, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	app := fx.New(fx.NopLogger,
		fx.Supply(cfg.Provider, cfg.Tools, slog.New(slog.DiscardHandler)),
		providerfx.Module, toolfx.Module, Option(),
		fx.Populate(&providers, &reg))
	require.NoError(t, app.Err())
	require.IsType(t, Model{}, providers.ByName[Provider])
	require.Contains(t, providers.ByName, scripted.Name)
	require.Equal(t, scripted.Name, providers.Default)
	require.Contains(t, reg.Names(), Fetch)
	require.False(t, reg.Local(Fetch), "fetch runs as a regular activity, on any worker")
}
