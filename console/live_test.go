package console

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/console/transcript"
	"github.com/tetherdev/tether/eventlog"
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

func TestTwoCallsStreamingAtOnceKeepTheirOwnTextAndSettleApart(t *testing.T) {
	var ls liveCalls
	chunk := func(turn int, text string) agent.TokenEvent {
		return agent.TokenEvent{Kind: agent.TokenChunk, Turn: turn, Step: 1, Attempt: 1, Chunk: signals.Chunk{Text: text}}
	}
	page := map[string]string{} // as the page's script keeps it
	for _, ev := range []agent.TokenEvent{chunk(2, "b1 "), chunk(3, "c1 "), chunk(2, "b2 "), chunk(3, "c2 "), chunk(3, "c3")} {
		fr, ok := ls.apply(ev)
		require.True(t, ok)
		var d tokenData
		require.NoError(t, json.Unmarshal(fr.Data, &d))
		key := fmt.Sprintf("%d-%d", d.Turn, d.Step)
		if !d.Replace {
			d.Text = page[key] + d.Text
		}
		page[key] = d.Text
	}
	require.Equal(t, map[string]string{"2-1": "b1 b2 ", "3-1": "c1 c2 c3"}, page,
		"a canceled call's tail does not cut into the next call's text")
	require.Len(t, ls.frames(), 2, "a page arriving now gets both")

	var log []eventlog.Envelope
	for i, e := range []eventlog.Event{eventlog.TurnStart{Turn: 2}, eventlog.StepStart{Turn: 2, Step: 1},
		eventlog.AssistantAttempt{Failure: eventlog.Failure{Kind: eventlog.FailureCanceled}},
		eventlog.StepEnd{Turn: 2, Step: 1}, eventlog.TurnEnd{Turn: 2, Reason: eventlog.EndCanceled}} {
		env, err := eventlog.Encode(int64(i), time.Time{}, "", e)
		require.NoError(t, err)
		log = append(log, env)
	}
	tr, err := transcript.Build(log, signals.Prices{})
	require.NoError(t, err)
	ls.settle(tr)
	require.Len(t, ls, 1)
	require.Equal(t, 3, ls[0].Turn, "the canceled call settled; the next is still in flight")

	for turn := 4; turn < 4+maxLiveCalls; turn++ {
		ls.apply(chunk(turn, "x"))
	}
	require.Len(t, ls, maxLiveCalls, "the oldest call gives way")
	require.Equal(t, 4, ls[0].Turn)
}

// The live path end to end: a viewer watching across a canceled call sees
// the next call's text whole, from its first token.
func TestTheCallAfterACanceledOneStreamsWholeToTheSameViewer(t *testing.T) {
	e := newEnv(t, envOptions{wordDelay: 60 * time.Millisecond})
	ctx := ctxT(t, 2*time.Minute)
	h := e.create(ctx, "recanted", "/say "+sentence("a", 10), signals.AgentOptions{})
	events := e.stream(ctx, "recanted", nil, "?from=0")
	page := map[string]string{}
	tokens := func(key, word string) func(sse) bool {
		return func(ev sse) bool {
			if ev.Event != "token" {
				return false
			}
			d := tokenOf(t, ev)
			k := fmt.Sprintf("%d-%d", d.Turn, d.Step)
			if !d.Replace {
				d.Text = page[k] + d.Text
			}
			page[k] = d.Text
			return k == key && strings.Contains(d.Text, word)
		}
	}
	until(t, ctx, events, tokens("1-1", "a02"))
	_, err := h.WaitIdle(ctx)
	require.NoError(t, err)

	_, err = h.Followup(ctx, "/say "+sentence("b", 80))
	require.NoError(t, err)
	until(t, ctx, events, tokens("2-1", "b03"))
	require.NoError(t, h.Cancel(ctx, "seen enough", false))
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	_, err = h.Followup(ctx, "/say "+sentence("c", 20))
	require.NoError(t, err)
	until(t, ctx, events, tokens("3-1", "c06"))
	require.True(t, strings.HasPrefix(page["3-1"], "c01 c02 c03 c04 c05 c06"), "%q", page["3-1"])
}
