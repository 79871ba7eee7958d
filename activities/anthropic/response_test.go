package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/anthropic"
	"github.com/tetherdev/tether/eventlog"
)

// message builds a minimal Messages API reply.
func message(stop, content string) string {
	return fmt.Sprintf(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":%s,
		"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":2}}`, content, stop)
}

func TestCompleteMapsResponse(t *testing.T) {
	small := eventlog.Usage{InputTokens: 3, OutputTokens: 2}
	tests := []struct {
		name string
		body string // fixture name or literal JSON
		want eventlog.AssistantMessage
	}{
		{
			name: "text answer with cache reads",
			body: "messages_text.json",
			want: eventlog.AssistantMessage{
				Text:         "The capital of France is Paris.",
				Usage:        eventlog.Usage{InputTokens: 312 + 1792, OutputTokens: 10, CachedTokens: 1792},
				FinishReason: eventlog.FinishStop, Provider: "anthropic", Model: "claude-sonnet-4-5-20250929",
			},
		},
		{
			name: "text and two tool calls",
			body: "messages_tool_use.json",
			want: eventlog.AssistantMessage{
				Text: "I'll check the weather and the time in Paris.",
				ToolCalls: []eventlog.ToolCallRequest{
					{ID: "toolu_01A09q90qw90lq917835lq9", Name: "get_weather", Arguments: json.RawMessage(`{"location": "Paris, France", "unit": "celsius"}`)},
					{ID: "toolu_01B7XUjHq2dLrmJzKfTnRsYk", Name: "get_time", Arguments: json.RawMessage(`{}`)},
				},
				Usage:        eventlog.Usage{InputTokens: 512, OutputTokens: 96},
				FinishReason: eventlog.FinishToolCalls, Provider: "anthropic", Model: "claude-sonnet-4-5-20250929",
			},
		},
		{
			name: "thinking and redacted thinking stay out of the message",
			body: "messages_thinking_tool_use.json",
			want: eventlog.AssistantMessage{
				ToolCalls: []eventlog.ToolCallRequest{
					{ID: "toolu_01CswdEQBMshySk6Y9DFKrfq", Name: "get_weather", Arguments: json.RawMessage(`{"location": "Paris"}`)},
				},
				Usage:        eventlog.Usage{InputTokens: 402, OutputTokens: 151},
				FinishReason: eventlog.FinishToolCalls, Provider: "anthropic", Model: "claude-sonnet-4-5-20250929",
			},
		},
		{
			name: "max tokens",
			body: "messages_max_tokens.json",
			want: eventlog.AssistantMessage{
				Text:         "Once upon a time, in a quiet village at the edge of",
				Usage:        eventlog.Usage{InputTokens: 14, OutputTokens: 16},
				FinishReason: eventlog.FinishMaxTokens, Provider: "anthropic", Model: "claude-haiku-4-5-20251001",
			},
		},
		{
			name: "refusal is content filter and keeps what was said",
			body: "messages_refusal.json",
			want: eventlog.AssistantMessage{
				Text:         "I can't help with",
				Usage:        eventlog.Usage{InputTokens: 88, OutputTokens: 5},
				FinishReason: eventlog.FinishContentFilter, Provider: "anthropic", Model: "claude-sonnet-4-5-20250929",
			},
		},
		{
			name: "stop sequence is stop; text blocks concatenate",
			body: message("stop_sequence", `[{"type":"text","text":"a"},{"type":"text","text":"b"}]`),
			want: eventlog.AssistantMessage{Text: "ab", Usage: small, FinishReason: eventlog.FinishStop, Provider: "anthropic", Model: "claude-x"},
		},
		{
			name: "context window exceeded cuts the answer like max tokens",
			body: message("model_context_window_exceeded", `[{"type":"text","text":"partial"}]`),
			want: eventlog.AssistantMessage{Text: "partial", Usage: small, FinishReason: eventlog.FinishMaxTokens, Provider: "anthropic", Model: "claude-x"},
		},
		{
			name: "pause turn is other",
			body: message("pause_turn", `[]`),
			want: eventlog.AssistantMessage{Usage: small, FinishReason: eventlog.FinishOther, Provider: "anthropic", Model: "claude-x"},
		},
		{
			name: "unknown stop reason is other",
			body: message("brand_new_reason", `[{"type":"text","text":"done"}]`),
			want: eventlog.AssistantMessage{Text: "done", Usage: small, FinishReason: eventlog.FinishOther, Provider: "anthropic", Model: "claude-x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, reply{status: 200, body: bodyOf(t, tt.body)})
			p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m"})

			got, err := p.Complete(context.Background(), hello)

			require.NoError(t, err)
			requireMessage(t, tt.want, got)
		})
	}
}

// requireMessage compares messages with tool arguments compared as JSON.
func requireMessage(t *testing.T, want, got eventlog.AssistantMessage) {
	t.Helper()
	require.Len(t, got.ToolCalls, len(want.ToolCalls))
	for i := range want.ToolCalls {
		require.JSONEq(t, string(want.ToolCalls[i].Arguments), string(got.ToolCalls[i].Arguments))
		got.ToolCalls[i].Arguments = want.ToolCalls[i].Arguments
	}
	require.Equal(t, want, got)
	_, err := json.Marshal(got) // RawMessage arguments must stay valid JSON
	require.NoError(t, err)
}

func TestCompleteMapsUnusableSuccessToFailure(t *testing.T) {
	tests := []struct {
		name string
		body string
		kind eventlog.FailureKind
	}{
		{"no content", `{"id":"msg_1","type":"message","model":"m","stop_reason":"end_turn"}`, eventlog.FailureServer},
		{"not json", `{"id": msg_1}`, eventlog.FailureServer},
		{"cut short", `{"id":"msg_1","content":[`, eventlog.FailureNetwork},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, reply{status: 200, body: tt.body})
			p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m"})

			_, err := p.Complete(context.Background(), hello)

			require.Equal(t, tt.kind, requireFailure(t, err).Kind)
		})
	}
}
