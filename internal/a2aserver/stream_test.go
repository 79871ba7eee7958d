package a2aserver

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/stretchr/testify/require"
)

// longAnswer is a /say of n words, streamed one word a chunk.
func longAnswer(n int) (prompt, answer string) {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i+1)
	}
	answer = strings.Join(words, " ")
	return "/say " + answer, answer
}

// received is what a client made of a stream's events.
type received struct {
	events   []a2a.Event
	live     int    // live artifact updates
	text     string // the artifact as append/replace leave it
	lastOnes int    // lastChunk artifact updates
	finals   []*a2a.TaskStatusUpdateEvent
	firstArt *a2a.TaskArtifactUpdateEvent
}

func (r *received) add(ev a2a.Event) {
	r.events = append(r.events, ev)
	switch ev := ev.(type) {
	case *a2a.TaskArtifactUpdateEvent:
		if r.firstArt == nil {
			r.firstArt = ev
		}
		text := ev.Artifact.Parts[0].(a2a.TextPart).Text
		if ev.Append {
			r.text += text
		} else {
			r.text = text
		}
		if ev.Metadata["tether.live"] == true {
			r.live++
		}
		if ev.LastChunk {
			r.lastOnes++
		}
	case *a2a.TaskStatusUpdateEvent:
		if ev.Final {
			r.finals = append(r.finals, ev)
		}
	}
}

func TestStreamSendsTheModelsLiveTextThenTheSettledAnswerOnce(t *testing.T) {
	f := newFixture(t)
	prompt, want := longAnswer(30)
	var r received
	for ev, err := range f.client.SendStreamingMessage(ctxT(t, 90*time.Second), &a2a.MessageSendParams{Message: userMessage("live", prompt)}) {
		require.NoError(t, err)
		r.add(ev)
	}
	_, ok := r.events[0].(*a2a.Task)
	require.True(t, ok, "the stream opens with the task")
	require.Greater(t, r.live, 1, "the answer arrives as live tokens, more than one update")
	require.False(t, r.firstArt.Append, "a stream's first artifact update replaces, never appends")
	require.Equal(t, want, r.text, "appending the live tokens and replacing with the settled answer leaves the answer")
	require.Equal(t, 1, r.lastOnes, "the settled answer is sent once")
	last, ok := r.events[len(r.events)-2].(*a2a.TaskArtifactUpdateEvent)
	require.True(t, ok && last.LastChunk, "the settled answer comes just before the final status")
	require.Len(t, r.finals, 1)
	require.Equal(t, r.finals[0], r.events[len(r.events)-1])
	require.Equal(t, a2a.TaskStateCompleted, r.finals[0].Status.State)
}

func TestResubscribeAfterADroppedStreamEndsWithTheAnswerOnceAndNoSecondTurn(t *testing.T) {
	f := newFixture(t)
	prompt, want := longAnswer(80)
	ctx, drop := context.WithCancel(ctxT(t, 90*time.Second))
	var first received
	var task *a2a.Task
	for ev, err := range f.client.SendStreamingMessage(ctx, &a2a.MessageSendParams{Message: userMessage("dropped", prompt)}) {
		require.NoError(t, err)
		first.add(ev)
		if tk, ok := ev.(*a2a.Task); ok {
			task = tk
		}
		if first.live >= 3 {
			break // the connection drops mid-answer
		}
	}
	drop()
	require.NotNil(t, task)
	require.Empty(t, first.finals)
	require.NotEqual(t, want, first.text, "dropped mid-answer")

	var again received
	for ev, err := range f.client.ResubscribeToTask(ctxT(t, 90*time.Second), &a2a.TaskIDParams{ID: task.ID}) {
		require.NoError(t, err)
		again.add(ev)
	}
	snap, ok := again.events[0].(*a2a.Task)
	require.True(t, ok, "a resubscription opens with the task as the log says now")
	require.Equal(t, task.ID, snap.ID)
	if snap.Status.State == a2a.TaskStateCompleted {
		// Settled before the client came back: the task carries the answer.
		require.Equal(t, want, answer(t, snap))
	} else {
		require.Equal(t, want, again.text, "the resumed stream's artifact is the answer, nothing lost or doubled")
		require.Equal(t, 1, again.lastOnes)
		require.Len(t, again.finals, 1)
		require.Equal(t, a2a.TaskStateCompleted, again.finals[0].Status.State)
		if again.firstArt != nil {
			require.False(t, again.firstArt.Append, "the resumed stream starts its artifact anew")
		}
	}
	got, err := f.client.GetTask(ctxT(t, 10*time.Second), &a2a.TaskQueryParams{ID: task.ID})
	require.NoError(t, err)
	require.Equal(t, a2a.TaskStateCompleted, got.Status.State)
	require.Equal(t, want, answer(t, got))
	h, err := f.agents.Attach(ctxT(t, 10*time.Second), "dropped")
	require.NoError(t, err)
	st, err := h.Status(ctxT(t, 10*time.Second))
	require.NoError(t, err)
	require.Equal(t, 1, st.Turn, "dropping and resubscribing opened no turn")

	// Resubscribing to a settled task sends it, answer included, and ends.
	var late received
	for ev, err := range f.client.ResubscribeToTask(ctxT(t, 30*time.Second), &a2a.TaskIDParams{ID: task.ID}) {
		require.NoError(t, err)
		late.add(ev)
	}
	require.Len(t, late.events, 1)
	require.Equal(t, want, answer(t, late.events[0].(*a2a.Task)))
}
