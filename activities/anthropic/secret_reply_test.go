package anthropic_test

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

	"github.com/tetherdev/tether/activities/anthropic"
	"github.com/tetherdev/tether/activities/llm"
)

// keyForms are the ways a model (or a gateway quoting the header) may
// write the key back in a normal reply, as JSON string content: as is,
// \u-escaped (the text holds the backslash), as HTML character references,
// in upper case and hex-encoded.
func keyForms(key string) map[string]string {
	var refs strings.Builder
	for i := range len(key) {
		fmt.Fprintf(&refs, "&#%d;", key[i])
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
// form under test, computed from the x-api-key header it received.
func replyServer(t *testing.T, contentType, body, form string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", contentType)
		_, _ = fmt.Fprintf(w, body, keyForms(req.Header.Get("X-Api-Key"))[form])
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func requireNoKey(t *testing.T, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	text := strings.ToLower(string(b))
	require.NotContains(t, text, "secret0123456789", string(b))
	require.NotContains(t, text, hex.EncodeToString([]byte("SECRET0123")), string(b))
	require.Contains(t, string(b), llm.Redacted)
}

const messageEcho = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[` +
	`{"type":"thinking","thinking":"The key is %[1]s","signature":"sig"},` +
	`{"type":"text","text":"Your key is %[1]s."},` +
	`{"type":"tool_use","id":"toolu_1","name":"write_file","input":{"path":".env","content":"KEY=%[1]s"}}],` +
	`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`

// Issue 20: a key echoed in a normal reply never reaches the message the
// model activity records.
func TestCompleteReplyNeverContainsAPIKey(t *testing.T) {
	for form := range keyForms(secretKey) {
		t.Run(form, func(t *testing.T) {
			base := replyServer(t, "application/json", messageEcho, form)
			p := newProvider(t, anthropic.Config{BaseURL: base, APIKey: secretKey, DefaultModel: "m"})

			out, err := p.Complete(context.Background(), hello)

			require.NoError(t, err)
			requireNoKey(t, out)
			require.Equal(t, "Your key is [redacted].", out.Text)
			require.JSONEq(t, `{"path":".env","content":"KEY=[redacted]"}`, string(out.ToolCalls[0].Arguments))
		})
	}
}

const streamEcho = `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The key is %[1]s"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Key: %[1]s"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"write_file","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"content\":\"%[1]s\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}

event: message_stop
data: {"type":"message_stop"}

`

// Issue 20: nor does a streamed reply, its thinking or its chunks.
func TestStreamReplyNeverContainsAPIKey(t *testing.T) {
	for form := range keyForms(secretKey) {
		t.Run(form, func(t *testing.T) {
			base := replyServer(t, "text/event-stream", streamEcho, form)
			p := newProvider(t, anthropic.Config{BaseURL: base, APIKey: secretKey, DefaultModel: "m"})
			var chunks []llm.Chunk

			out, err := p.Stream(context.Background(), hello, func(c llm.Chunk) { chunks = append(chunks, c) })

			require.NoError(t, err)
			requireNoKey(t, out)
			requireNoKey(t, chunks)
			require.Equal(t, "Key: [redacted]", out.Text)
			require.JSONEq(t, `{"content":"[redacted]"}`, string(out.ToolCalls[0].Arguments))
		})
	}
}

// splitDeltas is a Messages stream whose text is text, one delta of size
// bytes at a time.
func splitDeltas(text string, size int) string {
	var b strings.Builder
	b.WriteString(`event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

`)
	for i := 0; i < len(text); i += size {
		delta, _ := json.Marshal(text[i:min(i+size, len(text))])
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%s}}\n\n", delta)
	}
	b.WriteString(`event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}

event: message_stop
data: {"type":"message_stop"}

`)
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
				_, _ = io.WriteString(w, splitDeltas("Your key is "+req.Header.Get("X-Api-Key")+", keep it safe.", size))
			}))
			t.Cleanup(srv.Close)
			p := newProvider(t, anthropic.Config{BaseURL: srv.URL, APIKey: secretKey, DefaultModel: "m"})
			var live strings.Builder

			out, err := p.Stream(context.Background(), hello, func(c llm.Chunk) { live.WriteString(c.Text) })

			require.NoError(t, err)
			require.Equal(t, "Your key is [redacted], keep it safe.", live.String())
			require.Equal(t, live.String(), out.Text)
		})
	}
}
