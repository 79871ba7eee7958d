package openai_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/eventlog"
)

// keyForms are the ways a model (or a server quoting the header) may write
// the key back in a normal reply, as JSON string content: as is, \u-escaped
// (the text holds the backslash), as HTML character references, in upper
// case and hex-encoded.
func keyForms(key string) map[string]string {
	var refs strings.Builder
	for i := range len(key) {
		fmt.Fprintf(&refs, "&#x%x;", key[i])
	}
	return map[string]string{
		"as is":                key,
		"\\u-escaped":          `\\u0073` + key[1:],
		"character references": refs.String(),
		"upper case":           strings.ToUpper(key),
		"hex":                  hex.EncodeToString([]byte(key)),
	}
}

// replyServer answers every call with body, whose %[1]s is the key in the
// form under test, computed from the Authorization header it received.
func replyServer(t *testing.T, contentType, body, form string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		key := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Content-Type", contentType)
		_, _ = fmt.Fprintf(w, body, keyForms(key)[form])
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// requireNoKey checks the recorded message's JSON and the chunks.
func requireNoKey(t *testing.T, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	text := strings.ToLower(string(b))
	require.NotContains(t, text, "secret0123456789", string(b))
	require.NotContains(t, text, hex.EncodeToString([]byte("SECRET0123")), string(b))
	require.Contains(t, string(b), llm.Redacted)
}

const completionEcho = `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,` +
	`"message":{"role":"assistant","content":"Your key is %[1]s.","tool_calls":[{"id":"call_1","type":"function",` +
	`"function":{"name":"write_file","arguments":"{\"path\":\".env\",\"content\":\"KEY=%[1]s\"}"}}]},` +
	`"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`

// Issue 20: a key echoed in a normal reply never reaches the message the
// model activity records.
func TestCompleteReplyNeverContainsAPIKey(t *testing.T) {
	for form := range keyForms(secretKey) {
		t.Run(form, func(t *testing.T) {
			base := replyServer(t, "application/json", completionEcho, form)
			p := newProvider(t, openai.Config{BaseURL: base, APIKey: secretKey, DefaultModel: "m"})

			out, err := p.Complete(context.Background(), hello)

			require.NoError(t, err)
			requireNoKey(t, out)
			require.Equal(t, "Your key is [redacted].", out.Text)
			require.JSONEq(t, `{"path":".env","content":"KEY=[redacted]"}`, string(out.ToolCalls[0].Arguments))
		})
	}
}

const streamEcho = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"The key is %[1]s"},"finish_reason":null}]}

data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Key: %[1]s"},"finish_reason":null}]}

data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"write_file","arguments":"{\"content\":\"%[1]s\"}"}}]},"finish_reason":null}]}

data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}

data: [DONE]

`

// Issue 20: nor does a streamed reply, its reasoning or its chunks.
func TestStreamReplyNeverContainsAPIKey(t *testing.T) {
	for form := range keyForms(secretKey) {
		t.Run(form, func(t *testing.T) {
			base := replyServer(t, "text/event-stream", streamEcho, form)
			p := newProvider(t, openai.Config{BaseURL: base, APIKey: secretKey, DefaultModel: "m"})
			var chunks []llm.Chunk

			out, err := p.Stream(context.Background(), hello, func(c llm.Chunk) { chunks = append(chunks, c) })

			require.NoError(t, err)
			requireNoKey(t, out)
			requireNoKey(t, chunks)
			require.Equal(t, "Key: [redacted]", out.Text)
			require.Equal(t, eventlog.FinishToolCalls, out.FinishReason)
			require.JSONEq(t, `{"content":"[redacted]"}`, string(out.ToolCalls[0].Arguments))
		})
	}
}

// Issue 20: the same forms in an error body never reach the failure.
func TestCompleteErrorsNeverContainAnEscapedAPIKey(t *testing.T) {
	for form := range keyForms(secretKey) {
		t.Run(form, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				_, _ = io.Copy(io.Discard, req.Body)
				key := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = fmt.Fprintf(w, `{"error":{"message":"credential %s rejected","code":"invalid_api_key"}}`, keyForms(key)[form])
			}))
			t.Cleanup(srv.Close)
			p := newProvider(t, openai.Config{BaseURL: srv.URL + "/v1", APIKey: secretKey, DefaultModel: "m"})

			_, err := p.Complete(context.Background(), hello)

			f := requireFailure(t, err)
			requireNoKey(t, f)
			requireNoKey(t, err.Error())
		})
	}
}

// splitDeltas is a completion stream whose content is text, one delta of
// size bytes at a time.
func splitDeltas(text string, size int) string {
	var b strings.Builder
	for i := 0; i < len(text); i += size {
		delta, _ := json.Marshal(text[i:min(i+size, len(text))])
		fmt.Fprintf(&b, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", delta)
	}
	b.WriteString("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	return b.String()
}

// Issue 20: a model streams a key it echoes as many small deltas; no live
// chunk, and no run of them, spells it.
func TestStreamChunksNeverSpellAnAPIKeySplitAcrossDeltas(t *testing.T) {
	for _, size := range []int{1, 3, 4, 7} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				_, _ = io.Copy(io.Discard, req.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				key := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
				_, _ = io.WriteString(w, splitDeltas("Your key is "+key+", keep it safe.", size))
			}))
			t.Cleanup(srv.Close)
			p := newProvider(t, openai.Config{BaseURL: srv.URL + "/v1", APIKey: secretKey, DefaultModel: "m"})
			var live strings.Builder

			out, err := p.Stream(context.Background(), hello, func(c llm.Chunk) { live.WriteString(c.Text) })

			require.NoError(t, err)
			require.Equal(t, "Your key is [redacted], keep it safe.", live.String())
			require.Equal(t, live.String(), out.Text)
		})
	}
}
