package console

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

func TestALiveCallKeepsItsTextAndDiscardsAFailedAttempt(t *testing.T) {
	var l liveCall
	chunk := func(attempt int32, text string) agent.TokenEvent {
		return agent.TokenEvent{Kind: agent.TokenChunk, Turn: 2, Step: 1, Attempt: attempt, Chunk: signals.Chunk{Text: text}}
	}
	decode := func(fr frame, ok bool) tokenData {
		require.True(t, ok)
		var d tokenData
		require.NoError(t, json.Unmarshal(fr.Data, &d))
		return d
	}
	require.Equal(t, tokenData{Turn: 2, Step: 1, Attempt: 1, Text: "Hel", Replace: true}, decode(l.apply(chunk(1, "Hel"))))
	require.Equal(t, tokenData{Turn: 2, Step: 1, Attempt: 1, Text: "lo"}, decode(l.apply(chunk(1, "lo"))))
	require.Equal(t, "Hello", l.text.String())

	reset := decode(l.apply(agent.TokenEvent{Kind: agent.TokenReset, Turn: 2, Step: 1, Attempt: 1}))
	require.Equal(t, tokenData{Turn: 2, Step: 1, Attempt: 1, Replace: true, Failed: true}, reset)
	retry := decode(l.apply(chunk(2, "Hi")))
	require.Equal(t, tokenData{Turn: 2, Step: 1, Attempt: 2, Text: "Hi", Replace: true, Failed: true}, retry,
		"the retry starts over and still says an attempt failed")

	_, ok := l.apply(agent.TokenEvent{Kind: agent.TokenDone, Turn: 2, Step: 1, Attempt: 2})
	require.False(t, ok, "the end of a call needs no frame")
	tool := decode(l.apply(agent.TokenEvent{Kind: agent.TokenChunk, Turn: 2, Step: 1, Attempt: 2,
		Chunk: signals.Chunk{ToolName: "echo", Arguments: `{"text":`}}))
	require.Equal(t, "\n→ echo {\"text\":", tool.Text)
}

func TestASubscriberThatFallsBehindIsLetGoToReconnect(t *testing.T) {
	f := &feed{subs: map[chan frame]struct{}{}}
	slow, ready := make(chan frame), make(chan frame, 1)
	f.subs[slow], f.subs[ready] = struct{}{}, struct{}{}
	f.broadcast(frame{Event: "status", ID: 7})
	_, open := <-slow
	require.False(t, open, "a full queue closes the stream; the browser reconnects from its last ID")
	require.Equal(t, int64(7), (<-ready).ID)
	require.Len(t, f.subs, 1)
}
