package openai_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/eventlog"
)

type cacheFields struct {
	Key       *string `json:"prompt_cache_key"`
	Retention *string `json:"prompt_cache_retention"`
}

func sentCacheFields(t *testing.T, srv *fakeServer) cacheFields {
	t.Helper()
	_, _, body := srv.received()
	var got cacheFields
	require.NoError(t, json.Unmarshal(body, &got))
	return got
}

func TestPromptCacheKeyIsOneHashPerAgentNeverTheAgentID(t *testing.T) {
	srv := serve(t, reply{status: 200, body: fixture(t, "chat_text.json")})
	p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "gpt-4.1"})
	key := func(agent string, msgs ...string) string {
		req := llm.Request{CacheKey: agent}
		for _, m := range msgs {
			req.Messages = append(req.Messages, eventlog.Message{Role: eventlog.RoleUser, Content: m})
		}
		_, err := p.Complete(context.Background(), req)
		require.NoError(t, err)
		got := sentCacheFields(t, srv)
		require.NotNil(t, got.Key, "an agent's call sends a prompt_cache_key")
		return *got.Key
	}
	first := key("alice@example.com-agent", "hi")
	require.Equal(t, first, key("alice@example.com-agent", "hi", "and again"), "every call of one agent sends the same key")
	require.NotEqual(t, first, key("bob-agent", "hi"), "another agent has its own")
	require.NotContains(t, first, "alice")
	require.True(t, strings.HasPrefix(first, "tether-"))
	require.LessOrEqual(t, len(first), 64)
}

func TestPromptCacheKeyIsLeftOutWithoutAnAgent(t *testing.T) {
	srv := serve(t, reply{status: 200, body: fixture(t, "chat_text.json")})
	p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "gpt-4.1"})
	_, err := p.Complete(context.Background(), llm.Request{Messages: []eventlog.Message{{Role: eventlog.RoleUser, Content: "hi"}}})
	require.NoError(t, err)
	require.Equal(t, cacheFields{}, sentCacheFields(t, srv))
}

func TestPromptCacheRetentionIsSentAsConfigured(t *testing.T) {
	for _, retention := range []string{openai.CacheRetention24h, openai.CacheRetentionInMemory} {
		t.Run(retention, func(t *testing.T) {
			srv := serve(t, reply{status: 200, body: fixture(t, "chat_text.json")})
			p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "gpt-4.1", CacheRetention: retention})
			_, err := p.Complete(context.Background(), llm.Request{CacheKey: "a", Messages: []eventlog.Message{{Role: eventlog.RoleUser, Content: "hi"}}})
			require.NoError(t, err)
			got := sentCacheFields(t, srv)
			require.NotNil(t, got.Retention)
			require.Equal(t, retention, *got.Retention)
		})
	}
}

func TestPromptCacheRetentionOtherThanOpenAIsIsRefused(t *testing.T) {
	_, err := openai.New(openai.Config{CacheRetention: "1h"})
	require.ErrorContains(t, err, `cache retention "1h": want "in_memory" or "24h"`)
}

func TestUsageCountsCachedAndWrittenPromptTokens(t *testing.T) {
	usage := `"usage":{"prompt_tokens":2048,"completion_tokens":9,"total_tokens":2057,
		"prompt_tokens_details":{"cached_tokens":1536,"cache_write_tokens":384}}`
	want := eventlog.Usage{InputTokens: 2048, OutputTokens: 9, CachedTokens: 1536, CacheWriteTokens: 384}
	req := llm.Request{Messages: []eventlog.Message{{Role: eventlog.RoleUser, Content: "hi"}}}

	t.Run("complete", func(t *testing.T) {
		body := `{"id":"c","object":"chat.completion","model":"gpt-4.1","choices":[{"index":0,
			"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],` + usage + `}`
		srv := serve(t, reply{status: 200, body: body})
		out, err := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "gpt-4.1"}).Complete(context.Background(), req)
		require.NoError(t, err)
		require.Equal(t, want, out.Usage)
	})
	t.Run("stream", func(t *testing.T) {
		body := `data: {"id":"c","object":"chat.completion.chunk","model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}` + "\n\n" +
			`data: {"id":"c","object":"chat.completion.chunk","model":"gpt-4.1","choices":[],` + strings.ReplaceAll(usage, "\n\t\t", "") + "}\n\n" +
			"data: [DONE]\n\n"
		srv := serve(t, reply{status: 200, header: map[string]string{"Content-Type": "text/event-stream"}, body: body})
		out, err := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "gpt-4.1"}).Stream(context.Background(), req, nil)
		require.NoError(t, err)
		require.Equal(t, want, out.Usage)
	})
}
