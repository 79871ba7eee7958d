package bench

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/eventlog"
)

// TestTheWorkloadOverChatCompletionsAnswersAsTheWorkloadDoes asks the
// peers' model through Tether's OpenAI provider, the real SDK on the real
// protocol: a user message with a tool offered gets the tool call, the
// tool's result the 400-character answer, as workload.Model answers.
func TestTheWorkloadOverChatCompletionsAnswersAsTheWorkloadDoes(t *testing.T) {
	p, err := openai.New(openai.Config{BaseURL: workloadChat(t), APIKey: "bench", DefaultModel: "bench"})
	require.NoError(t, err)
	ctx := context.Background()
	tools := []llm.ToolSpec{{Name: workload.Fetch, Parameters: []byte(`{"type":"object"}`)}}
	msgs := []eventlog.Message{{Role: eventlog.RoleSystem, Content: "be brief"}, {Role: eventlog.RoleUser, Content: "turn 1"}}
	ask, err := p.Complete(ctx, llm.Request{Messages: msgs, Tools: tools})
	require.NoError(t, err)
	want, err := workload.Model{}.Complete(ctx, llm.Request{Messages: msgs, Tools: tools})
	require.NoError(t, err)
	require.Equal(t, eventlog.FinishToolCalls, ask.FinishReason)
	require.Len(t, ask.ToolCalls, 1)
	require.Equal(t, want.ToolCalls[0].ID, ask.ToolCalls[0].ID)
	require.Equal(t, workload.Fetch, ask.ToolCalls[0].Name)

	msgs = append(msgs, eventlog.Message{Role: eventlog.RoleAssistant, ToolCalls: ask.ToolCalls},
		eventlog.Message{Role: eventlog.RoleTool, ToolCallID: ask.ToolCalls[0].ID, Name: workload.Fetch, Content: "2 KB"})
	answer, err := p.Complete(ctx, llm.Request{Messages: msgs, Tools: tools})
	require.NoError(t, err)
	want, err = workload.Model{}.Complete(ctx, llm.Request{Messages: msgs, Tools: tools})
	require.NoError(t, err)
	require.Equal(t, eventlog.FinishStop, answer.FinishReason)
	require.Equal(t, want.Text, answer.Text)
	require.Len(t, answer.Text, workload.AnswerChars)
}
