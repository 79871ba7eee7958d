package openai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/eventlog"
)

// What a compatible server that repeats an id and leaves one empty must
// settle as: every call its own id, its own arguments, deterministically.
var normalisedCalls = []eventlog.ToolCallRequest{
	{ID: "call_0", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.txt"}`)},
	{ID: "call_0_1", Name: "read_file", Arguments: json.RawMessage(`{"path":"b.txt"}`)},
	{ID: "call_2", Name: "current_time", Arguments: json.RawMessage(`{}`)},
}

func TestCompleteGivesDuplicateAndEmptyToolCallIDsTheirOwn(t *testing.T) {
	msg := completeFixture(t, "chat_tool_calls_duplicate_ids.json")
	require.Equal(t, normalisedCalls, msg.ToolCalls)
	require.Equal(t, eventlog.FinishToolCalls, msg.FinishReason)
	require.Equal(t, msg, completeFixture(t, "chat_tool_calls_duplicate_ids.json"), "the same reply gets the same ids")
}

func TestStreamKeepsCallsWithDuplicateOrEmptyIDsApart(t *testing.T) {
	for _, name := range []string{"stream_tool_calls_duplicate_ids.sse", "stream_ollama_whole_calls_duplicate_ids.sse"} {
		t.Run(name, func(t *testing.T) {
			srv := serveStream(t, fixture(t, name))
			_, msg, err := stream(context.Background(), newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"}), hello)
			require.NoError(t, err)
			require.Equal(t, normalisedCalls, msg.ToolCalls)
			require.Equal(t, completeFixture(t, "chat_tool_calls_duplicate_ids.json"), msg, "streamed as it would be whole")
		})
	}
}
