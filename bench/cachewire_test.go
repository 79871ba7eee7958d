package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/eventlog"
)

// The local model servers of the prompt-cache benchmark speak each
// provider's wire protocol (the Messages API, chat completions), play the
// workload's model (a tool call after a user message, else an answer of
// workload.AnswerChars) and bill each call's prompt as the provider
// documents its cache. A token is 4 bytes of the prompt's JSON.
const (
	bytesPerToken = 4
	// minCachedTokens is the shortest prefix either provider caches
	// (Anthropic for Sonnet and Opus; OpenAI for every model).
	minCachedTokens = 1024
	// lookback is how many block boundaries before a breakpoint Anthropic
	// checks for a cached prefix.
	lookback = 20
	// openaiIncrement is the granularity of OpenAI's cache hits.
	openaiIncrement = 128
)

func tokensOf(n int) int64 { return int64((n + bytesPerToken - 1) / bytesPerToken) }

// ledger is what a server billed: per call and in total, with the
// physical limit, a cache that kept everything and only each call's new
// suffix (what its prompt does not share with the call before) uncached.
type ledger struct {
	mu   sync.Mutex
	seen billing
	prev []byte // the previous call's prompt, for its new suffix
}

// billing is a ledger's record of the calls since its reset.
type billing struct {
	calls  int
	billed eventlog.Usage // input counts every prompt token, as Tether does
	suffix int64          // Σ new suffix tokens: the physical limit's uncached
	bodies [][]byte       // every request body as received
	reads  []int64        // each call's cache read
	// extends says of each call whether the prompt before it is its
	// prefix, byte for byte.
	extends []bool
}

func (l *ledger) record(body, prompt []byte, u eventlog.Usage) {
	shared := commonPrefix(l.prev, prompt)
	b := &l.seen
	b.calls++
	b.billed = b.billed.Add(u)
	b.suffix += tokensOf(len(prompt)) - tokensOf(shared)
	b.bodies = append(b.bodies, body)
	b.reads = append(b.reads, u.CachedTokens)
	b.extends = append(b.extends, l.prev != nil && shared == len(l.prev))
	l.prev = prompt
}

// reset forgets every call, as for a new agent; caches are the servers'.
func (l *ledger) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen, l.prev = billing{}, nil
}

func (l *ledger) snapshot() billing {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seen
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+4096 <= n && bytes.Equal(a[i:i+4096], b[i:i+4096]) {
		i += 4096
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// answer is the workload's reply text for a conversation of n messages.
func answer(n int) string {
	text := fmt.Sprintf("answer after %d messages: ", n)
	return text + strings.Repeat("a", workload.AnswerChars-len(text))
}

func wireServer(t testing.TB, path string, handle func(body []byte) ([]byte, error)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != path {
			http.Error(w, `{"error":{"type":"not_found_error","message":"no such path"}}`, http.StatusNotFound)
			return
		}
		out, err := handle(body)
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// anthropicCache is a local Messages API that caches as Anthropic
// documents: a breakpoint (a block carrying cache_control) writes the
// prefix up to and including its block, when that prefix is at least
// minCachedTokens; a call reads the longest cached prefix ending at a
// breakpoint or at one of the lookback block boundaries before it. The
// prefix is tools, then system, then the messages' blocks, and a block's
// marker is no part of it. Reads bill 0.1×, writes 1.25× of input.
type anthropicCache struct {
	ledger
	cached map[[32]byte]bool
}

func newAnthropicCache(t testing.TB) (*anthropicCache, string) {
	a := &anthropicCache{cached: map[[32]byte]bool{}}
	return a, wireServer(t, "/v1/messages", a.handle)
}

type anthropicRequest struct {
	Model    string            `json:"model"`
	Tools    []json.RawMessage `json:"tools"`
	System   []json.RawMessage `json:"system"`
	Messages []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"messages"`
}

// prefixBlock is one block of the cached prefix: its bytes without the
// marker, and whether it carried one.
type prefixBlock struct {
	text   []byte
	marked bool
}

func unmarked(kind string, raw json.RawMessage) (prefixBlock, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return prefixBlock{}, fmt.Errorf("%s block is not an object", kind)
	}
	_, marked := fields["cache_control"]
	delete(fields, "cache_control")
	text, _ := json.Marshal(fields) // sorted keys
	return prefixBlock{text: append([]byte(kind+":"), text...), marked: marked}, nil
}

func (r anthropicRequest) blocks() ([]prefixBlock, error) {
	var out []prefixBlock
	add := func(kind string, raws []json.RawMessage) error {
		for _, raw := range raws {
			b, err := unmarked(kind, raw)
			if err != nil {
				return err
			}
			out = append(out, b)
		}
		return nil
	}
	if err := add("tool", r.Tools); err != nil {
		return nil, err
	}
	if err := add("system", r.System); err != nil {
		return nil, err
	}
	for _, m := range r.Messages {
		if err := add(m.Role, m.Content); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (a *anthropicCache) handle(body []byte) ([]byte, error) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		return nil, fmt.Errorf("request does not parse or has no messages")
	}
	blocks, err := req.blocks()
	if err != nil {
		return nil, err
	}
	var marks int
	hashes, ends := make([][32]byte, len(blocks)), make([]int64, len(blocks))
	var prompt []byte
	h := sha256.Sum256([]byte(req.Model)) // caches are per model
	for i, b := range blocks {
		h = sha256.Sum256(append(h[:], b.text...))
		hashes[i], prompt = h, append(prompt, b.text...)
		ends[i] = tokensOf(len(prompt))
		if b.marked {
			marks++
		}
	}
	if marks > 4 {
		return nil, fmt.Errorf("a maximum of 4 blocks with cache_control may be provided. Found %d", marks)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	u := a.bill(blocks, hashes, ends)
	out, err := a.reply(req, &u)
	a.record(body, prompt, u)
	return out, err
}

// bill reads the longest cached prefix a breakpoint reaches and writes
// every breakpoint's prefix.
func (a *anthropicCache) bill(blocks []prefixBlock, hashes [][32]byte, ends []int64) eventlog.Usage {
	total := ends[len(ends)-1]
	var read, last int64
	var marks []int
	for i, b := range blocks {
		if b.marked {
			marks = append(marks, i)
		}
	}
	for _, i := range marks {
		for p := i; p >= max(0, i-lookback); p-- {
			if a.cached[hashes[p]] {
				read = max(read, ends[p])
			}
		}
	}
	for _, i := range marks { // written once the call has read
		last = ends[i]
		if ends[i] >= minCachedTokens {
			a.cached[hashes[i]] = true
		}
	}
	write := int64(0)
	if last >= minCachedTokens {
		write = max(0, last-read)
	}
	return eventlog.Usage{InputTokens: total, CachedTokens: read, CacheWriteTokens: write}
}

func (a *anthropicCache) reply(req anthropicRequest, u *eventlog.Usage) ([]byte, error) {
	last := req.Messages[len(req.Messages)-1]
	var lastBlock struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(last.Content[len(last.Content)-1], &lastBlock)
	content, stop := []any{map[string]any{"type": "text", "text": answer(len(req.Messages))}}, "end_turn"
	if last.Role == "user" && lastBlock.Type == "text" && len(req.Tools) > 0 {
		var tool struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(req.Tools[0], &tool)
		content = []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", len(req.Messages)), "name": tool.Name, "input": map[string]any{}}}
		stop = "tool_use"
	}
	text, _ := json.Marshal(content)
	u.OutputTokens = tokensOf(len(text))
	return json.Marshal(map[string]any{
		"id": fmt.Sprintf("msg_%d", a.seen.calls), "type": "message", "role": "assistant", "model": req.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens": u.InputTokens - u.CachedTokens - u.CacheWriteTokens, "output_tokens": u.OutputTokens,
			"cache_read_input_tokens": u.CachedTokens, "cache_creation_input_tokens": u.CacheWriteTokens,
		},
	})
}

// openaiCache is a local chat completions server that caches as OpenAI
// documents: a prompt of at least minCachedTokens is cached whole, and a
// later call with the same prompt_cache_key reads the longest prefix it
// shares with a cached prompt, in openaiIncrement steps. A call without a
// key caches nothing. The prompt is the tools, then the messages. Cached
// tokens bill at the model's cached-input price; writes cost nothing more.
type openaiCache struct {
	ledger
	cached map[string][][]byte // prompts by prompt_cache_key
}

func newOpenAICache(t testing.TB) (*openaiCache, string) {
	o := &openaiCache{cached: map[string][][]byte{}}
	return o, wireServer(t, "/v1/chat/completions", o.handle) + "/v1"
}

type openaiRequest struct {
	Model    string            `json:"model"`
	Key      string            `json:"prompt_cache_key"`
	Tools    json.RawMessage   `json:"tools"`
	Messages []json.RawMessage `json:"messages"`
}

func (o *openaiCache) handle(body []byte) ([]byte, error) {
	var req openaiRequest
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		return nil, fmt.Errorf("request does not parse or has no messages")
	}
	prompt := append([]byte(req.Model+"\n"), req.Tools...)
	for _, m := range req.Messages {
		prompt = append(prompt, m...)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	u := eventlog.Usage{InputTokens: tokensOf(len(prompt))}
	if req.Key != "" {
		var shared int
		for _, p := range o.cached[req.Key] {
			shared = max(shared, commonPrefix(p, prompt))
		}
		if n := int64(shared / bytesPerToken); n >= minCachedTokens {
			u.CachedTokens = n / openaiIncrement * openaiIncrement
		}
		if u.InputTokens >= minCachedTokens {
			o.cached[req.Key] = append(o.cached[req.Key], prompt)
		}
	}
	out, err := o.reply(req, &u)
	o.record(body, prompt, u)
	return out, err
}

func (o *openaiCache) reply(req openaiRequest, u *eventlog.Usage) ([]byte, error) {
	var last struct {
		Role string `json:"role"`
	}
	_ = json.Unmarshal(req.Messages[len(req.Messages)-1], &last)
	var tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	_ = json.Unmarshal(req.Tools, &tools)
	msg, finish := map[string]any{"role": "assistant", "content": answer(len(req.Messages))}, "stop"
	if last.Role == "user" && len(tools) > 0 {
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": fmt.Sprintf("call_%d", len(req.Messages)), "type": "function",
			"function": map[string]any{"name": tools[0].Function.Name, "arguments": "{}"},
		}}}
		finish = "tool_calls"
	}
	text, _ := json.Marshal(msg)
	u.OutputTokens = tokensOf(len(text))
	return json.Marshal(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", o.seen.calls), "object": "chat.completion", "created": 0, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage": map[string]any{
			"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.InputTokens + u.OutputTokens,
			"prompt_tokens_details": map[string]any{"cached_tokens": u.CachedTokens},
		},
	})
}
