package e2e

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// slowStreamer streams words with a pause between them, as a model does;
// with failFirst its first attempt breaks off after two words.
type slowStreamer struct {
	words     []string
	pause     time.Duration
	failFirst bool
	mu        sync.Mutex
	calls     map[string]int
}

func (s *slowStreamer) Complete(ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	return s.Stream(ctx, req, func(llm.Chunk) {})
}

func (s *slowStreamer) Stream(ctx context.Context, _ llm.Request, emit func(llm.Chunk)) (eventlog.AssistantMessage, error) {
	id := activity.GetInfo(ctx).WorkflowExecution.ID
	s.mu.Lock()
	s.calls[id]++
	first := s.calls[id] == 1
	s.mu.Unlock()
	for i, w := range s.words {
		if s.failFirst && first && i == 2 {
			return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureOverloaded, 529, 0, "overloaded mid-stream", nil)
		}
		select {
		case <-ctx.Done():
			return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureCanceled, 0, 0, "canceled", ctx.Err())
		case <-time.After(s.pause):
		}
		emit(llm.Chunk{Text: w})
	}
	return eventlog.AssistantMessage{Text: strings.Join(s.words, ""), FinishReason: eventlog.FinishStop}, nil
}

// collect follows an agent's tokens until it is idle again; the stream
// must not fail meanwhile.
func collect(t *testing.T, ctx context.Context, h *agent.Handle) []agent.TokenEvent {
	tctx, stop := context.WithCancel(ctx)
	var got []agent.TokenEvent
	var failed error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range h.Tokens(tctx) {
			if err != nil {
				if tctx.Err() == nil {
					failed = err
				}
				return
			}
			got = append(got, ev)
		}
	}()
	_, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	stop()
	<-done
	require.NoError(t, failed, "the token stream failed after %d events", len(got))
	return got
}

// Tokens reach a client live, in order, from the worker running the call;
// no chunk is written to history: the settled message is the durable fact.
func TestTokensStreamLiveWithoutHistoryEvents(t *testing.T) {
	words := []string{"Stream", "ing ", "tokens ", "one ", "by ", "one."}
	e := newEnv(t)
	e.providers = map[string]activities.Provider{"slow": &slowStreamer{words: words, pause: 150 * time.Millisecond, calls: map[string]int{}}}
	e.startWorker()
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "streaming", Options: signals.AgentOptions{Provider: "slow"}, First: "talk"})
	require.NoError(t, err)
	got := collect(t, ctx, h)

	var text strings.Builder
	for _, ev := range got {
		if ev.Kind == agent.TokenChunk {
			text.WriteString(ev.Chunk.Text)
			require.Equal(t, 1, ev.Turn)
		}
	}
	require.NotEmpty(t, got)
	require.Equal(t, agent.TokenDone, got[len(got)-1].Kind)
	require.True(t, strings.HasSuffix(strings.Join(words, ""), text.String()), "received %q", text.String())
	require.Greater(t, text.Len(), len("Stream"), "several chunks arrived live")

	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	raw := historyBytes(t, history)
	require.Equal(t, 1, bytes.Count(raw, []byte("Streaming tokens one by one.")), "the settled message once")
	require.Zero(t, bytes.Count(raw, []byte(`"text":"tokens "`)), "no chunk in history")
	require.Zero(t, bytes.Count(raw, []byte(`"token"`)), "no stream token in history")
	require.Zero(t, bytes.Count(raw, []byte(e.streamURL)), "no stream locator in history")
	require.Less(t, len(history), 25, "a streamed turn costs the same events as any turn")
}

// A stream that breaks off tells subscribers to discard its partial output;
// the retry turn streams from scratch.
func TestFailedStreamResetsSubscribersAndTheRetryTurnStreamsAgain(t *testing.T) {
	words := []string{"a ", "b ", "c ", "d"}
	e := newEnv(t)
	e.providers = map[string]activities.Provider{"flaky-stream": &slowStreamer{words: words, pause: 200 * time.Millisecond, failFirst: true, calls: map[string]int{}}}
	e.startWorker()
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "reset", First: "talk",
		Options: signals.AgentOptions{Provider: "flaky-stream", Retry: &signals.RetryPolicy{Initial: 300 * time.Millisecond}}})
	require.NoError(t, err)
	got := collect(t, ctx, h)

	var kinds []string
	for _, ev := range got {
		kinds = append(kinds, fmt.Sprintf("%s@%d", ev.Kind, ev.Turn))
	}
	require.Contains(t, kinds, "reset@1", "the broken attempt is reset: %v", kinds)
	require.Equal(t, "done@2", kinds[len(kinds)-1], "the retry turn streams to the end: %v", kinds)
}

// quickModel is the scripted model streaming its answer word by word at
// 100 µs a word: a model call of about a millisecond, over before a client
// polling for it could find it.
var quickModel = scripted.Provider{WordDelay: 100 * time.Microsecond}

// A client that follows an agent before a turn starts sees every chunk of
// every model call of the turn, in order, from the agent's feed on the
// worker, however quick the calls.
func TestAFollowerSeesEveryChunkOfEveryQuickModelCall(t *testing.T) {
	e := newEnv(t)
	e.providers = map[string]activities.Provider{"quick": quickModel}
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "quick",
		Options: signals.AgentOptions{Provider: "quick", Tools: []string{"echo"}}})
	require.NoError(t, err)

	tctx, stop := context.WithCancel(ctx)
	defer stop()
	var mu sync.Mutex
	var got []agent.TokenEvent
	var failed error
	go func() {
		for ev, err := range h.Tokens(tctx) {
			mu.Lock()
			if err != nil {
				if tctx.Err() == nil {
					failed = err
				}
				mu.Unlock()
				return
			}
			got = append(got, ev)
			mu.Unlock()
		}
	}()
	const turns = 3
	for i := 1; i <= turns; i++ {
		_, err := h.Followup(ctx, fmt.Sprintf(`/tool echo {"text":"turn %d"}`, i))
		require.NoError(t, err)
		_, err = h.WaitIdle(ctx)
		require.NoError(t, err)
	}
	_, evs := logOf(t, ctx, h)
	answers := ofType[eventlog.AssistantMessage](evs)
	require.Len(t, answers, 2*turns)
	complete := assert.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, ev := range got {
			if ev.Kind == agent.TokenDone {
				n++
			}
		}
		return n == len(answers) || failed != nil
	}, 10*time.Second, 5*time.Millisecond, "a done for every model call")
	mu.Lock()
	streamErr := failed
	mu.Unlock()
	require.NoError(t, streamErr, "the token stream failed")
	require.True(t, complete)
	stop()

	mu.Lock()
	defer mu.Unlock()
	calls := streamedCalls(t, got)
	require.Len(t, calls, len(answers))
	for i, msg := range answers {
		require.Equal(t, [2]int{i/2 + 1, i%2 + 1}, calls[i].at, "calls in order, turn by turn")
		require.Equal(t, msg.Text, calls[i].text, "call %d: every chunk, in order", i)
		var tools []string
		for _, c := range msg.ToolCalls {
			tools = append(tools, c.Name)
		}
		require.Equal(t, tools, calls[i].tools, "call %d", i)
	}
}

// streamed is one model call as a follower received it.
type streamed struct {
	at    [2]int // turn, step
	text  string
	tools []string
}

// streamedCalls groups token events by call; every call ends done, none
// was reset.
func streamedCalls(t *testing.T, evs []agent.TokenEvent) []streamed {
	t.Helper()
	var out []streamed
	open := false
	for _, ev := range evs {
		require.NotEqual(t, agent.TokenReset, ev.Kind)
		if !open {
			out = append(out, streamed{at: [2]int{ev.Turn, ev.Step}})
			open = true
		}
		c := &out[len(out)-1]
		require.Equal(t, c.at, [2]int{ev.Turn, ev.Step}, "one call at a time")
		switch ev.Kind {
		case agent.TokenChunk:
			c.text += ev.Chunk.Text
			if ev.Chunk.ToolName != "" {
				c.tools = append(c.tools, ev.Chunk.ToolName)
			}
		case agent.TokenDone:
			open = false
		}
	}
	return out
}

// starter start --stream and followup --stream print every call of their
// turn, however quick.
func TestStarterStreamsEveryQuickModelCallOfItsTurn(t *testing.T) {
	e := newEnv(t)
	e.providers = map[string]activities.Provider{"quick": quickModel}
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)

	first := e.starter(ctx, "start", "--id", "cli-quick", "--provider", "quick", "--tools", "echo", "--stream", `/tool echo {"text":"one"}`)
	requireExit(t, first, 0)
	second := e.starter(ctx, "followup", "--stream", "cli-quick", `/tool echo {"text":"two"}`)
	requireExit(t, second, 0)

	h, err := e.agents.Attach(ctx, "cli-quick")
	require.NoError(t, err)
	_, evs := logOf(t, ctx, h)
	answers := ofType[eventlog.AssistantMessage](evs)
	require.Len(t, answers, 4)
	for i, out := range []string{first.out, second.out} {
		require.Equal(t, 1, strings.Count(out, "[tool call echo]"), "turn %d:\n%s", i+1, out)
		require.Contains(t, out, answers[2*i+1].Text, "turn %d prints its answer", i+1)
		require.NotContains(t, out, answers[2*(1-i)+1].Text, "and not the other turn's")
		require.Contains(t, out, fmt.Sprintf("idle after turn %d", i+1))
	}
}

// One follower across a canceled call: the turn after it streams too.
func TestAFollowerSeesTheCallAfterACanceledOne(t *testing.T) {
	e := newEnv(t)
	e.providers = map[string]activities.Provider{"paced": scripted.Provider{WordDelay: 60 * time.Millisecond}}
	e.startWorker()
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "follow-cancel", Options: signals.AgentOptions{Provider: "paced"}, First: "/say hi"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	tctx, stop := context.WithCancel(ctx)
	defer stop()
	turns := make(chan int, 1024)
	go func() {
		for ev, err := range h.Tokens(tctx) {
			if err != nil {
				return
			}
			if ev.Kind == agent.TokenChunk {
				turns <- ev.Turn
			}
		}
	}()
	words := func(p string) string {
		var b strings.Builder
		for i := range 60 {
			fmt.Fprintf(&b, " %s%02d", p, i)
		}
		return "/say" + b.String()
	}
	_, err = h.Followup(ctx, words("b"))
	require.NoError(t, err)
	waitChunkOf := func(turn int) {
		t.Helper()
		for {
			select {
			case got := <-turns:
				if got == turn {
					return
				}
			case <-ctx.Done():
				t.Fatalf("no chunk of turn %d", turn)
			}
		}
	}
	waitChunkOf(2)
	require.NoError(t, h.Cancel(ctx, "enough", false))
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	_, err = h.Followup(ctx, words("c"))
	require.NoError(t, err)
	waitChunkOf(3)
}
