package activities_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/signals"
)

// hugeServer speaks the chat completions protocol, whole or streamed as the
// request asks, with a 3 MB answer: text, or the arguments of one of two
// tool calls.
func hugeServer(t *testing.T, text, args string) string {
	t.Helper()
	msg := map[string]any{"role": "assistant", "content": text}
	if args != "" {
		msg["tool_calls"] = []map[string]any{
			{"id": "c0", "type": "function", "function": map[string]any{"name": "echo", "arguments": args}},
			{"id": "c1", "type": "function", "function": map[string]any{"name": "echo", "arguments": `{"text":"small"}`}},
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": "big",
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": msg}},
				"usage":   map[string]int{"prompt_tokens": 1, "completion_tokens": 1}})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		delta := map[string]any{"content": text}
		if calls, ok := msg["tool_calls"].([]map[string]any); ok {
			for i, c := range calls {
				c["index"] = i
			}
			delta["tool_calls"] = calls
		}
		for _, chunk := range []map[string]any{
			{"id": "x", "object": "chat.completion.chunk", "model": "big", "choices": []any{map[string]any{"index": 0, "delta": delta}}},
			{"id": "x", "object": "chat.completion.chunk", "model": "big", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}},
		} {
			b, _ := json.Marshal(chunk)
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func hugeModel(t *testing.T, baseURL string, streamed bool) *activities.Model {
	t.Helper()
	p, err := openai.New(openai.Config{BaseURL: baseURL, DefaultModel: "big"})
	require.NoError(t, err)
	m := newModel(t, map[string]activities.Provider{"main": p}, &fakeConversation{msgs: testConversation})
	if streamed {
		hub := stream.NewHub(stream.HubOptions{})
		t.Cleanup(hub.Close)
		m.Streams = activities.HubStreams{Hub: hub, BaseURL: "http://127.0.0.1:1"}
	}
	return m
}

// payloadSize is the result's size as the activity's payload.
func payloadSize(t *testing.T, out signals.ModelOutput) int {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayload(out)
	require.NoError(t, err)
	return len(p.GetData())
}

func TestModelCallBoundsA3MBAnswerFarBelowThePayloadLimit(t *testing.T) {
	huge := strings.Repeat("All work and no play. ", (3<<20)/22)
	for _, streamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("streamed=%v", streamed), func(t *testing.T) {
			out, err := callModel(t, hugeModel(t, hugeServer(t, huge, ""), streamed), signals.ModelInput{Ref: signals.LogRef{Upto: 2}})
			require.NoError(t, err)
			require.LessOrEqual(t, payloadSize(t, out), llm.MaxReplyBytes)
			require.True(t, strings.HasPrefix(out.Text, huge[:1000]), "the start of the answer is kept")
			require.Contains(t, out.Text, fmt.Sprintf("of %d bytes kept; a reply may be at most %d bytes]", len(huge), llm.MaxReplyBytes))
		})
	}
}

func TestModelCallDrops3MBToolArgumentsAndKeepsTheOtherCalls(t *testing.T) {
	args := `{"text":"` + strings.Repeat("z", 3<<20) + `"}`
	for _, streamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("streamed=%v", streamed), func(t *testing.T) {
			out, err := callModel(t, hugeModel(t, hugeServer(t, "calling", args), streamed), signals.ModelInput{Ref: signals.LogRef{Upto: 2}})
			require.NoError(t, err)
			require.LessOrEqual(t, payloadSize(t, out), llm.MaxReplyBytes)
			require.Len(t, out.ToolCalls, 2)
			n, limit, dropped := llm.DroppedArguments(out.ToolCalls[0].Arguments)
			require.True(t, dropped)
			require.Equal(t, len(args), n)
			require.Equal(t, llm.MaxArgumentsBytes, limit)
			require.JSONEq(t, `{"text":"small"}`, string(out.ToolCalls[1].Arguments))
			require.Equal(t, "calling", out.Text)
		})
	}
}
