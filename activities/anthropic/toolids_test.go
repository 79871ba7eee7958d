package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/anthropic"
	"github.com/tetherdev/tether/eventlog"
)

// An Anthropic-compatible proxy that repeats a tool_use id and leaves one
// empty, whole and streamed: each call keeps its own id and arguments.
const duplicateIDsBody = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x",
"content":[
 {"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"a.txt"}},
 {"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"b.txt"}},
 {"type":"tool_use","id":"","name":"current_time","input":{}}],
"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":5}}`

const duplicateIDsStream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"a.txt\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"b.txt\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"","name":"current_time","input":{}}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":5}}

event: message_stop
data: {"type":"message_stop"}

`

func TestDuplicateAndEmptyToolUseIDsGetTheirOwnWholeAndStreamed(t *testing.T) {
	want := []eventlog.ToolCallRequest{
		{ID: "toolu_1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.txt"}`)},
		{ID: "toolu_1_1", Name: "read_file", Arguments: json.RawMessage(`{"path":"b.txt"}`)},
		{ID: "call_2", Name: "current_time", Arguments: json.RawMessage(`{}`)},
	}
	whole := serve(t, reply{status: 200, body: duplicateIDsBody})
	got, err := newProvider(t, anthropic.Config{BaseURL: whole.URL, DefaultModel: "m"}).Complete(context.Background(), hello)
	require.NoError(t, err)
	require.Equal(t, want, got.ToolCalls)

	streamed := serve(t, reply{status: 200, header: map[string]string{"Content-Type": "text/event-stream"}, body: duplicateIDsStream})
	gotStream, err := newProvider(t, anthropic.Config{BaseURL: streamed.URL, DefaultModel: "m"}).Stream(context.Background(), hello, nil)
	require.NoError(t, err)
	require.Equal(t, got, gotStream)
}
