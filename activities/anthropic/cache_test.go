package anthropic_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/anthropic"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

// withoutCacheControl is a request body with its breakpoints taken out.
func withoutCacheControl(t *testing.T, body []byte) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(body, &v))
	out, err := json.Marshal(dropKey(v, "cache_control"))
	require.NoError(t, err)
	return string(out)
}

func dropKey(v any, key string) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, key)
		for k, e := range v {
			v[k] = dropKey(e, key)
		}
	case []any:
		for i, e := range v {
			v[i] = dropKey(e, key)
		}
	}
	return v
}

// breakpoints lists the places of a request body's cache_control markers:
// "tools[i]", "system[i]" and "messages[i].content[j]".
func breakpoints(t *testing.T, body []byte) (places []string, ttls []string) {
	t.Helper()
	type block struct {
		CacheControl *struct {
			Type string `json:"type"`
			TTL  string `json:"ttl"`
		} `json:"cache_control"`
	}
	var req struct {
		Tools    []block `json:"tools"`
		System   []block `json:"system"`
		Messages []struct {
			Content []block `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(body, &req))
	mark := func(place string, b block) {
		if b.CacheControl != nil {
			require.Equal(t, "ephemeral", b.CacheControl.Type)
			places, ttls = append(places, place), append(ttls, b.CacheControl.TTL)
		}
	}
	for i, b := range req.Tools {
		mark("tools["+strconv.Itoa(i)+"]", b)
	}
	for i, b := range req.System {
		mark("system["+strconv.Itoa(i)+"]", b)
	}
	for i, m := range req.Messages {
		for j, b := range m.Content {
			mark("messages["+strconv.Itoa(i)+"].content["+strconv.Itoa(j)+"]", b)
		}
	}
	return places, ttls
}

// toolLoop is a conversation three steps into a turn: a question, two
// parallel tool calls and their results, another call and its result.
var toolLoop = []eventlog.Message{
	{Role: eventlog.RoleSystem, Content: "Be brief."},
	{Role: eventlog.RoleUser, Content: "Weather and time?"},
	{Role: eventlog.RoleAssistant, ToolCalls: []eventlog.ToolCallRequest{{ID: "t1", Name: "get_weather"}, {ID: "t2", Name: "get_time"}}},
	{Role: eventlog.RoleTool, ToolCallID: "t1", Content: "18C"},
	{Role: eventlog.RoleTool, ToolCallID: "t2", Content: "noon"},
	{Role: eventlog.RoleAssistant, Content: "And the forecast.", ToolCalls: []eventlog.ToolCallRequest{{ID: "t3", Name: "get_weather"}}},
	{Role: eventlog.RoleTool, ToolCallID: "t3", Content: "rain later"},
}

var twoTools = []llm.ToolSpec{{Name: "get_weather"}, {Name: "get_time"}}

func TestCacheBreakpointsMarkToolsSystemThePreviousCallsEndAndThisOnes(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
		want []string
	}{
		{"a first call: tools, system and its end", llm.Request{Messages: toolLoop[:2], Tools: twoTools},
			[]string{"tools[1]", "system[0]", "messages[0].content[0]"}},
		{"a tool loop: where the call before ended, and this end",
			llm.Request{Messages: toolLoop, Tools: twoTools},
			[]string{"tools[1]", "system[0]", "messages[2].content[1]", "messages[4].content[0]"}},
		{"a followup after an answer ends where the answer's call ended",
			llm.Request{Messages: append(append([]eventlog.Message(nil), toolLoop...),
				eventlog.Message{Role: eventlog.RoleAssistant, Content: "Rain later."},
				eventlog.Message{Role: eventlog.RoleUser, Content: "Umbrella?"}), Tools: twoTools},
			[]string{"tools[1]", "system[0]", "messages[4].content[0]", "messages[6].content[0]"}},
		{"no tools and no system prompt: the conversation's two only",
			llm.Request{Messages: toolLoop[1:]},
			[]string{"messages[2].content[1]", "messages[4].content[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, reply{status: 200, body: fixture(t, "messages_text.json")})
			_, err := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m"}).Complete(context.Background(), tt.req)
			require.NoError(t, err)
			_, _, body := srv.received()
			got, _ := breakpoints(t, body)
			require.Equal(t, tt.want, got)
			require.LessOrEqual(t, len(got), 4, "the API refuses more than 4 breakpoints")
		})
	}
}

// Each call marks as its own end the block the next call marks as the
// previous end, so the next call reads the prefix this one wrote; and the
// bytes up to that block are the same in both bodies.
func TestCacheBreakpointOfOneCallsEndIsTheNextCallsPreviousEnd(t *testing.T) {
	srv := serve(t, reply{status: 200, body: fixture(t, "messages_text.json")})
	p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m"})
	send := func(msgs []eventlog.Message) []byte {
		_, err := p.Complete(context.Background(), llm.Request{Messages: msgs, Tools: twoTools})
		require.NoError(t, err)
		_, _, body := srv.received()
		return body
	}
	first, second := send(toolLoop[:5]), send(toolLoop)
	firstMarks, _ := breakpoints(t, first)
	secondMarks, _ := breakpoints(t, second)
	require.Equal(t, firstMarks[len(firstMarks)-1], secondMarks[len(secondMarks)-2])

	// What the first call sent is the second's prefix byte for byte: tools
	// and system with their markers, the message where the first ended
	// with its marker, and the messages before it but for the marker that
	// moved on (a marker is no part of the cached content).
	var a, b struct {
		Tools, System json.RawMessage
		Messages      []json.RawMessage
	}
	require.NoError(t, json.Unmarshal(first, &a))
	require.NoError(t, json.Unmarshal(second, &b))
	require.Equal(t, string(a.Tools), string(b.Tools))
	require.Equal(t, string(a.System), string(b.System))
	end := len(a.Messages) - 1
	require.Equal(t, string(a.Messages[end]), string(b.Messages[end]))
	for i := range end {
		require.Equal(t, withoutCacheControl(t, a.Messages[i]), withoutCacheControl(t, b.Messages[i]), "message %d", i)
	}
}

func TestCacheTTLLongMarksEveryBreakpointForAnHour(t *testing.T) {
	srv := serve(t, reply{status: 200, body: fixture(t, "messages_text.json")})
	p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m", CacheTTL: time.Hour})
	_, err := p.Complete(context.Background(), llm.Request{Messages: toolLoop, Tools: twoTools})
	require.NoError(t, err)
	_, _, body := srv.received()
	_, ttls := breakpoints(t, body)
	require.Equal(t, []string{"1h", "1h", "1h", "1h"}, ttls)
}

func TestCacheTTLOtherThanTheAPIsTwoIsRefused(t *testing.T) {
	_, err := anthropic.New(anthropic.Config{CacheTTL: 10 * time.Minute})
	require.ErrorContains(t, err, "cache ttl 10m0s: want 5m0s or 1h0m0s")
}

func TestUsageCountsCacheReadsAndWritesInInputAndApart(t *testing.T) {
	for _, c := range bothCalls {
		t.Run(c.name, func(t *testing.T) {
			body := `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],
				"stop_reason":"end_turn","usage":{"input_tokens":30,"cache_read_input_tokens":1200,"cache_creation_input_tokens":400,"output_tokens":5}}`
			if c.name == "stream" {
				body = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":30,\"cache_read_input_tokens\":1200,\"cache_creation_input_tokens\":400,\"output_tokens\":1}}}\n\n" +
					"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
					"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
					"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
					"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\n" +
					"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
			}
			srv := serve(t, reply{status: 200, body: body})
			out, err := c.do(newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m"}), context.Background(), hello)
			require.NoError(t, err)
			require.Equal(t, eventlog.Usage{InputTokens: 1630, OutputTokens: 5, CachedTokens: 1200, CacheWriteTokens: 400}, out.Usage)
		})
	}
}
