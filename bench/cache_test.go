package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/anthropic"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// cacheSubject is one provider of the prompt-cache benchmark: Tether's
// own adapter against a local server that bills as the provider does.
type cacheSubject struct {
	name   string
	prices signals.Prices // the provider's list prices, per million tokens
	start  func(testing.TB) (cacheServer, activities.Provider)
}

type cacheServer interface {
	reset()
	snapshot() billing
}

var cacheSubjects = []cacheSubject{
	// claude-sonnet: input 3, output 15; cache reads 0.1×, 5-minute writes 1.25×.
	{"anthropic", signals.Prices{Input: 3, Output: 15, Cached: 0.3, CacheWrite: 3.75}, func(t testing.TB) (cacheServer, activities.Provider) {
		srv, url := newAnthropicCache(t)
		p, err := anthropic.New(anthropic.Config{BaseURL: url, DefaultModel: "claude-sonnet-4-5"})
		if err != nil {
			t.Fatal(err)
		}
		return srv, p
	}},
	// gpt-4.1: input 2, output 8, cached input 0.5; no write price.
	{"openai", signals.Prices{Input: 2, Output: 8, Cached: 0.5}, func(t testing.TB) (cacheServer, activities.Provider) {
		srv, url := newOpenAICache(t)
		p, err := openai.New(openai.Config{BaseURL: url, DefaultModel: "gpt-4.1"})
		if err != nil {
			t.Fatal(err)
		}
		return srv, p
	}},
}

// cacheSystemPrompt is an agent's system prompt of about 1,500 tokens.
func cacheSystemPrompt(id string) string {
	rule := "Answer from the tool's results; say which result each claim comes from. "
	return "You are agent " + id + ". " + strings.Repeat(rule, 6000/len(rule))
}

// runCached drives an agent through turns of the workload (the fast
// local tool) on a worker whose model is p, and returns its status.
func runCached(t testing.TB, e *env, id string, turns int) signals.StatusView {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: id, First: "turn 1", Options: signals.AgentOptions{
		SystemPrompt: cacheSystemPrompt(id), Tools: []string{workload.Read, workload.Fetch},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var st signals.StatusView
	for turn := 1; turn <= turns; turn++ {
		if turn > 1 {
			if _, err := h.Followup(ctx, fmt.Sprintf("turn %d", turn)); err != nil {
				t.Fatal(err)
			}
		}
		st = waitIdle(t, ctx, h)
	}
	return st
}

// waitIdle asks again while a WaitIdle lands between two runs of a chain.
func waitIdle(t testing.TB, ctx context.Context, h *agent.Handle) signals.StatusView {
	t.Helper()
	for {
		st, err := h.WaitIdle(ctx)
		switch {
		case err == nil && st.Idle():
			return st
		case ctx.Err() != nil:
			t.Fatalf("agent never idle: %v", err)
		}
	}
}

func cacheWorker(t testing.TB, p activities.Provider, cfg workflows.Config) *env {
	t.Helper()
	e := serverOnly(t)
	w, err := newWorker(e.c, signals.TaskQueue, p, workloadTools(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return e
}

// BenchmarkPromptCache50Turns runs 50 turns of the workload (each a tool
// call returning 2 KB, then a 400-character answer; a 1,500-token system
// prompt, two tools) through Tether's Anthropic and OpenAI adapters
// against local servers that bill each call's prompt as the provider
// documents its cache, and reports: the share of input tokens billed
// uncached (not read from the cache), the cost against the same calls
// without caching, and both against the physical limit, where only each
// call's new suffix is uncached.
func BenchmarkPromptCache50Turns(b *testing.B) {
	for _, s := range cacheSubjects {
		b.Run(s.name, func(b *testing.B) {
			srv, p := s.start(b)
			e := cacheWorker(b, p, workflows.Config{})
			for i := 0; i < b.N; i++ {
				srv.reset()
				st := runCached(b, e, fmt.Sprintf("cache-%s-%d", s.name, i), 50)
				seen := srv.snapshot()
				if st.Usage != seen.billed {
					b.Fatalf("the agent recorded %+v, the server billed %+v", st.Usage, seen.billed)
				}
				reportCache(b, s.prices, seen)
			}
		})
	}
}

func reportCache(b *testing.B, prices signals.Prices, seen billing) {
	u := seen.billed
	in := float64(u.InputTokens)
	uncached := in - float64(u.CachedTokens)
	cost := prices.Cost(u)
	none := prices.Cost(eventlog.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens})
	limit := prices.Cost(eventlog.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CachedTokens: u.InputTokens - seen.suffix})
	b.ReportMetric(float64(seen.calls), "calls")
	b.ReportMetric(in/1e6, "input-Mtok")
	b.ReportMetric(uncached/1e3, "uncached-ktok")
	b.ReportMetric(float64(seen.suffix)/1e3, "limit-ktok")
	b.ReportMetric(100*uncached/in, "uncached-%")
	b.ReportMetric(100*float64(u.CacheWriteTokens)/in, "written-%")
	b.ReportMetric(100*float64(seen.suffix)/in, "limit-uncached-%")
	b.ReportMetric(uncached/float64(seen.suffix), "uncached/limit")
	b.ReportMetric(cost, "cost-$")
	b.ReportMetric(none, "cost-uncached-$")
	b.ReportMetric(cost/none, "cost/uncached")
	b.ReportMetric(cost/limit, "cost/limit")
}

// Two consecutive calls send the same prefix byte for byte, also when a
// Continue-As-New came between them (every second turn here), and the
// provider's cache serves each call all the previous one sent.
func TestPromptCachePrefixIsByteStableAcrossCallsAndContinueAsNew(t *testing.T) {
	for _, s := range cacheSubjects {
		t.Run(s.name, func(t *testing.T) {
			srv, p := s.start(t)
			e := cacheWorker(t, p, workflows.Config{MaxRunTurns: 2})
			st := runCached(t, e, "cache-stable-"+s.name, 5)
			if st.Runs < 3 {
				t.Fatalf("the agent ran %d runs; want a Continue-As-New every second turn", st.Runs)
			}
			seen := srv.snapshot()
			if seen.calls != 10 {
				t.Fatalf("%d calls, want 2 a turn", seen.calls)
			}
			for i := 1; i < seen.calls; i++ {
				if !seen.extends[i] {
					t.Errorf("call %d: the prompt of call %d is not its prefix", i, i-1)
				}
				requireSamePrefix(t, i, seen.bodies[i-1], seen.bodies[i])
				if seen.reads[i] == 0 {
					t.Errorf("call %d read nothing from the cache", i)
				}
			}
			if st.Usage != seen.billed {
				t.Fatalf("the agent recorded %+v, the server billed %+v", st.Usage, seen.billed)
			}
		})
	}
}

// requireSamePrefix checks a call's body against the one before: the same
// tools, system prompt and cache key byte for byte, and the earlier call's
// messages again, each byte for byte but for Anthropic's cache markers,
// which move on to the new end (no part of the cached content).
func requireSamePrefix(t *testing.T, call int, before, after []byte) {
	t.Helper()
	type body struct {
		Tools    json.RawMessage   `json:"tools"`
		System   json.RawMessage   `json:"system"`
		Key      json.RawMessage   `json:"prompt_cache_key"`
		Messages []json.RawMessage `json:"messages"`
	}
	var a, b body
	if err := json.Unmarshal(before, &a); err != nil {
		t.Fatalf("call %d: %v", call-1, err)
	}
	if err := json.Unmarshal(after, &b); err != nil {
		t.Fatalf("call %d: %v", call, err)
	}
	if string(a.Tools) != string(b.Tools) || string(a.System) != string(b.System) || string(a.Key) != string(b.Key) {
		t.Errorf("call %d: tools, system prompt or cache key differ from the call before", call)
	}
	if len(b.Messages) <= len(a.Messages) {
		t.Fatalf("call %d: %d messages after %d", call, len(b.Messages), len(a.Messages))
	}
	for i := range a.Messages {
		if unmarkedJSON(a.Messages[i]) != unmarkedJSON(b.Messages[i]) {
			t.Errorf("call %d: message %d differs from the call before:\n%s\n%s", call, i, a.Messages[i], b.Messages[i])
		}
	}
}

// unmarkedJSON is a message as raw bytes with Anthropic's cache markers
// cut out.
func unmarkedJSON(raw json.RawMessage) string {
	s := string(raw)
	for _, m := range []string{`,"cache_control":{"type":"ephemeral"}`, `"cache_control":{"type":"ephemeral"},`} {
		s = strings.ReplaceAll(s, m, "")
	}
	return s
}
