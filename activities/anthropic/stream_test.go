package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/anthropic"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

// cutToolStream runs out of max_tokens inside a tool call's input.
const cutToolStream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_9","name":"write","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"text\": \"once upon"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":16}}

event: message_stop
data: {"type":"message_stop"}

`

func TestStreamEmitsDeltasInOrderAndAssemblesMessage(t *testing.T) {
	sonnet := "claude-sonnet-4-5-20250929"
	tests := []struct {
		name   string
		body   string
		chunks []llm.Chunk
		want   eventlog.AssistantMessage
	}{
		{
			name:   "text deltas around pings",
			body:   "stream_text.sse",
			chunks: []llm.Chunk{{Text: "The capital"}, {Text: " of France is"}, {Text: " Paris."}},
			want: eventlog.AssistantMessage{
				Text:         "The capital of France is Paris.",
				Usage:        eventlog.Usage{InputTokens: 312 + 1792, OutputTokens: 10, CachedTokens: 1792},
				FinishReason: eventlog.FinishStop, Provider: "anthropic", Model: sonnet,
			},
		},
		{
			name: "tool calls announce themselves, then stream their input",
			body: "stream_tool_use.sse",
			chunks: []llm.Chunk{
				{Text: "Checking the weather."},
				{ToolIndex: 0, ToolID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", ToolName: "get_weather"},
				{ToolIndex: 0, Arguments: `{"location":`},
				{ToolIndex: 0, Arguments: ` "Paris, Fra`},
				{ToolIndex: 0, Arguments: `nce"}`},
				{ToolIndex: 1, ToolID: "toolu_01BqN3fK8sLz2YwXv5Rm7Tt9", ToolName: "get_time"},
			},
			want: eventlog.AssistantMessage{
				Text: "Checking the weather.",
				ToolCalls: []eventlog.ToolCallRequest{
					{ID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", Name: "get_weather", Arguments: json.RawMessage(`{"location": "Paris, France"}`)},
					{ID: "toolu_01BqN3fK8sLz2YwXv5Rm7Tt9", Name: "get_time", Arguments: json.RawMessage(`{}`)},
				},
				Usage:        eventlog.Usage{InputTokens: 472, OutputTokens: 89},
				FinishReason: eventlog.FinishToolCalls, Provider: "anthropic", Model: sonnet,
			},
		},
		{
			name: "thinking streams as reasoning and stays out of the text",
			body: "stream_thinking.sse",
			chunks: []llm.Chunk{
				{Reasoning: "27 * 453: 27 * 400 = 10800,"},
				{Reasoning: " 27 * 53 = 1431, total 12231."},
				{Text: "27 * 453 = 12,231"},
			},
			want: eventlog.AssistantMessage{
				Text:         "27 * 453 = 12,231",
				Usage:        eventlog.Usage{InputTokens: 36, OutputTokens: 142},
				FinishReason: eventlog.FinishStop, Provider: "anthropic", Model: sonnet,
			},
		},
		{
			name:   "a tool call cut off by max tokens keeps valid JSON arguments",
			body:   cutToolStream,
			chunks: []llm.Chunk{{ToolIndex: 0, ToolID: "toolu_9", ToolName: "write"}, {ToolIndex: 0, Arguments: `{"text": "once upon`}},
			want: eventlog.AssistantMessage{
				ToolCalls:    []eventlog.ToolCallRequest{{ID: "toolu_9", Name: "write", Arguments: json.RawMessage(`{}`)}},
				Usage:        eventlog.Usage{InputTokens: 9, OutputTokens: 16},
				FinishReason: eventlog.FinishMaxTokens, Provider: "anthropic", Model: "claude-x",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, reply{status: 200, body: bodyOf(t, tt.body)})
			p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m"})
			var chunks []llm.Chunk

			got, err := p.Stream(context.Background(), hello, func(c llm.Chunk) { chunks = append(chunks, c) })

			require.NoError(t, err)
			require.Equal(t, tt.chunks, chunks)
			requireMessage(t, tt.want, got)
			require.EqualValues(t, 1, srv.calls.Load())
		})
	}
}

func TestStreamAssemblesWhatCompleteReturnsForTheSameReply(t *testing.T) {
	plain := serve(t, reply{status: 200, body: fixture(t, "messages_text.json")})
	streamed := serve(t, reply{status: 200, body: fixture(t, "stream_text.sse")})

	want, err := newProvider(t, anthropic.Config{BaseURL: plain.URL, DefaultModel: "m"}).Complete(context.Background(), hello)
	require.NoError(t, err)
	got, err := newProvider(t, anthropic.Config{BaseURL: streamed.URL, DefaultModel: "m"}).Stream(context.Background(), hello, nil)
	require.NoError(t, err)

	require.Equal(t, want, got)
}
