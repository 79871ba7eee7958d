package e2e

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
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

// collect follows an agent's tokens until it is idle again.
func collect(t *testing.T, ctx context.Context, h *agent.Handle) []agent.TokenEvent {
	tctx, stop := context.WithCancel(ctx)
	var got []agent.TokenEvent
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range h.Tokens(tctx) {
			if err != nil {
				return
			}
			got = append(got, ev)
		}
	}()
	_, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	stop()
	<-done
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
