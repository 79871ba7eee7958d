package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/eventlog"
)

// completion builds a minimal chat completion body around one choice.
func completion(finish, message string) string {
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m-1",
		"choices":[{"index":0,"finish_reason":%s,"message":%s}],
		"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`, finish, message)
}

func TestCompleteMapsResponse(t *testing.T) {
	small := eventlog.Usage{InputTokens: 3, OutputTokens: 2}
	tests := []struct {
		name string
		body string
		want eventlog.AssistantMessage
	}{
		{
			name: "plain text answer with cached tokens",
			body: "chat_text.json",
			want: eventlog.AssistantMessage{
				Text:         "The capital of France is Paris.",
				Usage:        eventlog.Usage{InputTokens: 1932, OutputTokens: 8, CachedTokens: 1792},
				FinishReason: eventlog.FinishStop, Provider: "openai", Model: "gpt-4.1-2025-04-14",
			},
		},
		{
			name: "two parallel tool calls",
			body: "chat_tool_calls.json",
			want: eventlog.AssistantMessage{
				ToolCalls: []eventlog.ToolCallRequest{
					{ID: "call_FthC9qRpsL5kBpwwyw6c7j4k", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris, France","unit":"celsius"}`)},
					{ID: "call_RpEDoB8O0FTL9JoKTuCVFOyR", Name: "get_time", Arguments: json.RawMessage(`{"timezone":"Europe/Paris"}`)},
				},
				Usage:        eventlog.Usage{InputTokens: 187, OutputTokens: 52},
				FinishReason: eventlog.FinishToolCalls, Provider: "openai", Model: "gpt-4o-2024-08-06",
			},
		},
		{
			name: "length finish is max tokens",
			body: "chat_length.json",
			want: eventlog.AssistantMessage{
				Text:         "Once upon a time, in a quiet village at the edge of",
				Usage:        eventlog.Usage{InputTokens: 14, OutputTokens: 16},
				FinishReason: eventlog.FinishMaxTokens, Provider: "openai", Model: "gpt-4o-mini-2024-07-18",
			},
		},
		{
			name: "ollama tool call without finish reason and with non-JSON arguments",
			body: "ollama_tool_call_no_finish.json",
			want: eventlog.AssistantMessage{
				ToolCalls: []eventlog.ToolCallRequest{
					{ID: "call_k3v9x1p2", Name: "search", Arguments: json.RawMessage(`"{query: unquoted keys}"`)},
				},
				Usage:        eventlog.Usage{InputTokens: 231, OutputTokens: 19},
				FinishReason: eventlog.FinishToolCalls, Provider: "openai", Model: "qwen3:8b",
			},
		},
		{
			name: "stop alongside tool calls is tool calls; empty and string-literal arguments stay valid JSON",
			body: completion(`"stop"`, `{"role":"assistant","content":null,"tool_calls":[
				{"id":"c1","type":"function","function":{"name":"now","arguments":""}},
				{"id":"c2","type":"function","function":{"name":"echo","arguments":"\"hi\""}}]}`),
			want: eventlog.AssistantMessage{
				ToolCalls: []eventlog.ToolCallRequest{
					{ID: "c1", Name: "now", Arguments: json.RawMessage(`{}`)},
					{ID: "c2", Name: "echo", Arguments: json.RawMessage(`"\"hi\""`)},
				},
				Usage: small, FinishReason: eventlog.FinishToolCalls, Provider: "openai", Model: "m-1",
			},
		},
		{
			name: "content filter",
			body: completion(`"content_filter"`, `{"role":"assistant","content":""}`),
			want: eventlog.AssistantMessage{Usage: small, FinishReason: eventlog.FinishContentFilter, Provider: "openai", Model: "m-1"},
		},
		{
			name: "legacy function_call finish is tool calls",
			body: completion(`"function_call"`, `{"role":"assistant","content":null}`),
			want: eventlog.AssistantMessage{Usage: small, FinishReason: eventlog.FinishToolCalls, Provider: "openai", Model: "m-1"},
		},
		{
			name: "unknown finish reason is other",
			body: completion(`"eos_token"`, `{"role":"assistant","content":"done"}`),
			want: eventlog.AssistantMessage{Text: "done", Usage: small, FinishReason: eventlog.FinishOther, Provider: "openai", Model: "m-1"},
		},
		{
			name: "missing finish reason without tool calls is other",
			body: completion(`null`, `{"role":"assistant","content":"done"}`),
			want: eventlog.AssistantMessage{Text: "done", Usage: small, FinishReason: eventlog.FinishOther, Provider: "openai", Model: "m-1"},
		},
		{
			name: "refusal becomes the text",
			body: completion(`"stop"`, `{"role":"assistant","content":null,"refusal":"I can't help with that."}`),
			want: eventlog.AssistantMessage{Text: "I can't help with that.", Usage: small, FinishReason: eventlog.FinishStop, Provider: "openai", Model: "m-1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if body[0] != '{' {
				body = fixture(t, body)
			}
			srv := serve(t, reply{status: 200, body: body})
			p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

			got, err := p.Complete(context.Background(), llm.Request{Messages: []eventlog.Message{{Role: eventlog.RoleUser, Content: "hi"}}})

			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			_, err = json.Marshal(got) // RawMessage arguments must stay valid JSON
			require.NoError(t, err)
		})
	}
}
