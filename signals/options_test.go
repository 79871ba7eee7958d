package signals

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestValidateOptionsRefusesWhatAnAgentCannotRunWith(t *testing.T) {
	known, providers := []string{"a", "b"}, []string{"openai", "scripted"}
	cases := map[string]AgentOptions{
		"thousands of parallel tools": {MaxParallelTools: 5000},
		"negative parallel tools":     {MaxParallelTools: -1},
		"an unknown tool":             {Tools: []string{"a", "nope"}},
		"a tool twice":                {Tools: []string{"a", "a"}},
		"too many tools":              {Tools: make([]string, MaxTools+1)},
		"an enormous system prompt":   {SystemPrompt: strings.Repeat("x", MaxSystemPromptSize+1)},
		"enormous prompt sections":    {Prompt: &Prompt{Sections: []Section{{Text: strings.Repeat("x", MaxSystemPromptSize+1)}}}},
		"an unknown provider":         {Provider: "nope"},
		"a huge model name":           {Model: strings.Repeat("m", MaxNameBytes+1)},
		"too many steps":              {MaxSteps: MaxStepsLimit + 1},
		"a negative budget":           {Budget: &Budget{MaxTokens: -1}},
		"a negative approval timeout": {Approval: &ApprovalPolicy{Timeout: -time.Second}},
		"an unknown on_timeout":       {Approval: &ApprovalPolicy{OnTimeout: "maybe"}},
		"an empty hook name":          {Hooks: []string{""}},
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, ValidateOptions(o, known, providers), ErrInvalidOptions)
		})
	}
	require.NoError(t, ValidateOptions(AgentOptions{Tools: []string{"a"}, Provider: "openai", MaxParallelTools: 8}, known, providers))
	require.NoError(t, ValidateOptions(AgentOptions{Tools: []string{"anything"}, Provider: "any"}, nil, nil), "nil lists check nothing")
}

func TestToolListTrimsNamesAndDropsEmptyEntries(t *testing.T) {
	require.Equal(t, []string{"echo", "calculate"}, ToolList(" echo , calculate,"))
	require.Equal(t, []string{"mcp:search/find"}, ToolList("mcp:search/find"))
	require.Nil(t, ToolList(""))
	require.Nil(t, ToolList(" , ,"))
	require.Equal(t, []string{"a", "a"}, ToolList("a,a"), "a name twice is left for ValidateOptions to refuse")
}
