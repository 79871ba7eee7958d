package activities_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// streamer streams its answer word by word.
type streamer struct{ text string }

func (s streamer) Complete(context.Context, llm.Request) (eventlog.AssistantMessage, error) {
	return eventlog.AssistantMessage{Text: s.text, FinishReason: eventlog.FinishStop}, nil
}

func (s streamer) Stream(_ context.Context, _ llm.Request, emit func(llm.Chunk)) (eventlog.AssistantMessage, error) {
	for _, w := range strings.SplitAfter(s.text, " ") {
		emit(llm.Chunk{Text: w})
	}
	return s.Complete(context.Background(), llm.Request{})
}

// liveStreams keeps what subscribers would see.
type liveStreams struct {
	mu     sync.Mutex
	chunks []string
	closed error
}

func (l *liveStreams) Open(_, _, _ string, attempt int32) (activities.ChunkWriter, signals.StreamLocator) {
	return l, signals.StreamLocator{URL: "http://hub/s", Token: "t", Attempt: attempt}
}

func (l *liveStreams) Emit(c llm.Chunk) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.chunks = append(l.chunks, c.Text)
}

func (l *liveStreams) Close(err error) { l.closed = err }

// redact is an llm/stream hook that masks a word in the live chunks and in
// the message the log records.
var redact = activities.StreamHook{Name: "redact", Wrap: func(ctx context.Context, req llm.Request, emit func(llm.Chunk),
	next activities.StreamFunc) (eventlog.AssistantMessage, error) {
	out, err := next(ctx, req, func(c llm.Chunk) {
		c.Text = strings.ReplaceAll(c.Text, "secret", "******")
		emit(c)
	})
	out.Text = strings.ReplaceAll(out.Text, "secret", "******")
	return out, err
}}

// cached answers without calling the provider: a hook that does not call
// next short-circuits the chain.
var cached = activities.StreamHook{Name: "cached", Wrap: func(_ context.Context, _ llm.Request, emit func(llm.Chunk),
	_ activities.StreamFunc) (eventlog.AssistantMessage, error) {
	emit(llm.Chunk{Text: "from cache"})
	return eventlog.AssistantMessage{Text: "from cache", FinishReason: eventlog.FinishStop}, nil
}}

func streamingModel(t *testing.T, live *liveStreams) *activities.Model {
	m := newModel(t, map[string]activities.Provider{"main": streamer{text: "the secret is out"}}, &fakeConversation{msgs: testConversation})
	m.Streams, m.StreamHooks = live, map[string]activities.StreamHook{"redact": redact, "cached": cached}
	return m
}

func TestAStreamHookWrapsTheLiveChunksAndTheRecordedMessage(t *testing.T) {
	live := &liveStreams{}
	out, err := callModel(t, streamingModel(t, live), signals.ModelInput{Call: signals.CallConfig{Stream: []string{"redact"}}})
	require.NoError(t, err)
	require.Equal(t, "the ****** is out", out.Text)
	require.Equal(t, []string{"the ", "****** ", "is ", "out"}, live.chunks)
	require.NoError(t, live.closed)
	require.Equal(t, 4, out.Stream.Chunks, "the timing counts the provider's chunks")
	require.GreaterOrEqual(t, out.Stream.Ms, out.Stream.FirstMs)
}

func TestAStreamHookThatDoesNotCallNextAnswersTheCallItself(t *testing.T) {
	live := &liveStreams{}
	out, err := callModel(t, streamingModel(t, live), signals.ModelInput{Call: signals.CallConfig{Stream: []string{"cached", "redact"}}})
	require.NoError(t, err)
	require.Equal(t, "from cache", out.Text)
	require.Equal(t, []string{"from cache"}, live.chunks)
	require.Zero(t, out.Stream.Chunks, "the provider never streamed")
}

func TestAnUnregisteredStreamHookFailsTheCallAsAnInvalidRequest(t *testing.T) {
	live := &liveStreams{}
	_, err := callModel(t, streamingModel(t, live), signals.ModelInput{Call: signals.CallConfig{Stream: []string{"nope"}}})
	app := requireAppError(t, err)
	require.Equal(t, string(eventlog.FailureInvalidRequest), app.Type())
	require.True(t, app.NonRetryable())
	require.Contains(t, app.Message(), `stream hook "nope" is not registered`)
	require.Error(t, live.closed, "subscribers are told to discard the attempt")
}
