package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/eventlog"
)

var eventStream = map[string]string{"Content-Type": "text/event-stream; charset=utf-8"}

// serveStream answers every request with a 200 event stream.
func serveStream(t *testing.T, body string) *fakeServer {
	t.Helper()
	return serve(t, reply{status: 200, header: eventStream, body: body})
}

// stream runs Stream and returns what it emitted along with its result.
func stream(ctx context.Context, p *openai.Provider, req llm.Request) ([]llm.Chunk, eventlog.AssistantMessage, error) {
	var chunks []llm.Chunk
	msg, err := p.Stream(ctx, req, func(c llm.Chunk) { chunks = append(chunks, c) })
	return chunks, msg, err
}

// completeFixture is what Complete returns for a recorded completion body.
func completeFixture(t *testing.T, name string) eventlog.AssistantMessage {
	t.Helper()
	srv := serve(t, reply{status: 200, body: fixture(t, name)})
	msg, err := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"}).Complete(context.Background(), hello)
	require.NoError(t, err)
	return msg
}

// stallingServer sends head as the start of a 200 event stream and then
// holds the connection open until the client goes away or the test ends.
func stallingServer(t *testing.T, head string) string {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, head)
		w.(http.Flusher).Flush()
		select {
		case <-req.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: cleanups are LIFO
	return srv.URL + "/v1"
}

const firstTextEvent = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}` + "\n\n"

func TestStreamEmitsTextDeltasAndSettlesAsComplete(t *testing.T) {
	srv := serveStream(t, fixture(t, "stream_text.sse"))
	p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

	chunks, msg, err := stream(context.Background(), p, hello)

	require.NoError(t, err)
	require.Equal(t, []llm.Chunk{
		{Text: "The"}, {Text: " capital"}, {Text: " of"}, {Text: " France"}, {Text: " is"}, {Text: " Paris"}, {Text: "."},
	}, chunks)
	require.Equal(t, eventlog.AssistantMessage{
		Text:         "The capital of France is Paris.",
		Usage:        eventlog.Usage{InputTokens: 1932, OutputTokens: 8, CachedTokens: 1792},
		FinishReason: eventlog.FinishStop, Provider: "openai", Model: "gpt-4.1-2025-04-14",
	}, msg)
	require.Equal(t, completeFixture(t, "chat_text.json"), msg)
}

func TestStreamAssemblesParallelToolCallsInterleavedByIndex(t *testing.T) {
	srv := serveStream(t, fixture(t, "stream_tool_calls.sse"))
	p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

	chunks, msg, err := stream(context.Background(), p, hello)

	require.NoError(t, err)
	require.Equal(t, []llm.Chunk{
		{ToolIndex: 0, ToolID: "call_FthC9qRpsL5kBpwwyw6c7j4k", ToolName: "get_weather"},
		{ToolIndex: 0, Arguments: `{"location"`},
		{ToolIndex: 1, ToolID: "call_RpEDoB8O0FTL9JoKTuCVFOyR", ToolName: "get_time"},
		{ToolIndex: 0, Arguments: `:"Paris, France",`},
		{ToolIndex: 1, Arguments: `{"timezone":`},
		{ToolIndex: 0, Arguments: `"unit":"celsius"}`},
		{ToolIndex: 1, Arguments: `"Europe/Paris"}`},
	}, chunks)
	require.Equal(t, completeFixture(t, "chat_tool_calls.json"), msg)
}

func TestStreamTakesWholeOllamaToolCallsWithoutUsage(t *testing.T) {
	srv := serveStream(t, fixture(t, "stream_ollama_tool_calls.sse"))
	p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

	chunks, msg, err := stream(context.Background(), p, hello)

	require.NoError(t, err)
	require.Equal(t, []llm.Chunk{
		{ToolIndex: 0, ToolID: "call_7ylq0x2c", ToolName: "get_weather", Arguments: `{"location":"Paris"}`},
		{ToolIndex: 1, ToolID: "call_m1d8a0qe", ToolName: "get_time", Arguments: `{"timezone":"Europe/Paris"}`},
	}, chunks)
	require.Equal(t, eventlog.AssistantMessage{
		ToolCalls: []eventlog.ToolCallRequest{
			{ID: "call_7ylq0x2c", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)},
			{ID: "call_m1d8a0qe", Name: "get_time", Arguments: json.RawMessage(`{"timezone":"Europe/Paris"}`)},
		},
		FinishReason: eventlog.FinishToolCalls, Provider: "openai", Model: "qwen3:8b",
	}, msg, "no usage chunk means zero usage; stop with tool calls means tool calls")
}

func TestStreamEmitsReasoningDeltas(t *testing.T) {
	ollama := sse(
		`{"id":"c","model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Two plus two."},"finish_reason":null}]}`,
		`{"id":"c","model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","content":"4"},"finish_reason":null}]}`,
		`{"id":"c","model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"stop"}]}`,
		`{"id":"c","model":"qwen3:8b","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":5,"total_tokens":16}}`,
		`[DONE]`)
	both := sse(
		`{"id":"c","model":"m","choices":[{"index":0,"delta":{"reasoning_content":"Hmm.","reasoning":"Hmm."},"finish_reason":null}]}`,
		`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"4"},"finish_reason":"stop"}]}`,
		`[DONE]`)
	tests := []struct {
		name   string
		body   string
		chunks []llm.Chunk
		want   eventlog.AssistantMessage
	}{
		{"vllm reasoning_content", fixture(t, "stream_reasoning_content.sse"),
			[]llm.Chunk{{Reasoning: "The user"}, {Reasoning: " wants 2+2"}, {Reasoning: ". That is 4."}, {Text: "2 + 2"}, {Text: " = 4."}},
			eventlog.AssistantMessage{Text: "2 + 2 = 4.", Usage: eventlog.Usage{InputTokens: 14, OutputTokens: 26},
				FinishReason: eventlog.FinishStop, Provider: "openai", Model: "Qwen/Qwen3-8B"}},
		{"ollama reasoning", ollama,
			[]llm.Chunk{{Reasoning: "Two plus two."}, {Text: "4"}},
			eventlog.AssistantMessage{Text: "4", Usage: eventlog.Usage{InputTokens: 11, OutputTokens: 5},
				FinishReason: eventlog.FinishStop, Provider: "openai", Model: "qwen3:8b"}},
		{"both fields carry the same delta once", both,
			[]llm.Chunk{{Reasoning: "Hmm."}, {Text: "4"}},
			eventlog.AssistantMessage{Text: "4", FinishReason: eventlog.FinishStop, Provider: "openai", Model: "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serveStream(t, tt.body)
			p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

			chunks, msg, err := stream(context.Background(), p, hello)

			require.NoError(t, err)
			require.Equal(t, tt.chunks, chunks)
			require.Equal(t, tt.want, msg)
		})
	}
}

func TestStreamKeepsRepeatedToolIDsAndNamesOnOneCall(t *testing.T) {
	body := sse(
		`{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t1","function":{"name":"search","arguments":"{\"q\":"}}]},"finish_reason":null}]}`,
		`{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t1","function":{"name":"search","arguments":"\"go\"}"}}]},"finish_reason":null}]}`,
		`{"id":"c","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"error":null}`,
		`[DONE]`)
	srv := serveStream(t, body)
	p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

	chunks, msg, err := stream(context.Background(), p, hello)

	require.NoError(t, err, `a null "error" field is not an error event`)
	require.Equal(t, []llm.Chunk{
		{ToolIndex: 0, ToolID: "t1", ToolName: "search", Arguments: `{"q":`},
		{ToolIndex: 0, Arguments: `"go"}`},
	}, chunks)
	require.Equal(t, []eventlog.ToolCallRequest{{ID: "t1", Name: "search", Arguments: json.RawMessage(`{"q":"go"}`)}}, msg.ToolCalls)
}

func TestStreamAcceptsNilEmit(t *testing.T) {
	srv := serveStream(t, fixture(t, "stream_text.sse"))
	p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

	msg, err := p.Stream(context.Background(), hello, nil)

	require.NoError(t, err)
	require.Equal(t, "The capital of France is Paris.", msg.Text)
}

func TestStreamSendsStreamingRequest(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{"effort becomes reasoning_effort",
			llm.Request{Model: "o4-mini", MaxTokens: 64, Effort: "high", Messages: hello.Messages},
			`{"model":"o4-mini","max_completion_tokens":64,"reasoning_effort":"high","stream":true,
				"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`},
		{"no effort leaves it unset",
			llm.Request{Model: "gpt-4.1", Messages: hello.Messages},
			`{"model":"gpt-4.1","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serveStream(t, fixture(t, "stream_text.sse"))
			p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

			_, _, err := stream(context.Background(), p, tt.req)
			require.NoError(t, err)

			path, _, body := srv.received()
			require.Equal(t, "/v1/chat/completions", path)
			require.JSONEq(t, tt.want, string(body))
			require.EqualValues(t, 1, srv.calls.Load())
		})
	}
}

// sse frames JSON payloads as server-sent events.
func sse(events ...string) string {
	var b []byte
	for _, e := range events {
		b = append(b, "data: "...)
		b = append(b, e...)
		b = append(b, "\n\n"...)
	}
	return string(b)
}
