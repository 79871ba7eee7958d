package transcript

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// sayTurn is a turn n that answers text, settled idle.
func sayTurn(n int, text string) []eventlog.Event {
	return []eventlog.Event{
		eventlog.StatusChanged{Status: eventlog.StatusRunning},
		eventlog.TurnStart{Turn: n},
		eventlog.StepStart{Turn: n, Step: 1},
		eventlog.UserMessage{MessageID: eventlog.MessageID("m" + text), Content: text},
		eventlog.AssistantMessage{Text: text, FinishReason: eventlog.FinishStop},
		eventlog.StepEnd{Turn: n, Step: 1},
		eventlog.TurnEnd{Turn: n, Reason: eventlog.EndCompleted},
		eventlog.StatusChanged{Status: eventlog.StatusIdle},
	}
}

func TestARewindSetsApartTheTurnsItWentBackPastAndShowsWhereItHappened(t *testing.T) {
	var evs []eventlog.Event
	for n, text := range []string{"one", "two", "three"} {
		evs = append(evs, sayTurn(n+1, text)...)
	}
	evs = append(evs, eventlog.SessionRewound{ToTurn: 1, At: 6, Past: 3, Keep: 2, By: "console"})
	evs = append(evs, sayTurn(4, "four")...)
	env := log(t, evs...)
	rewindSeq := int64(3 * 8)

	tr := New(signals.Prices{})
	for _, e := range env[:rewindSeq] {
		_, err := tr.Apply(e)
		require.NoError(t, err)
	}
	before := tr.Next
	b, err := tr.Apply(env[rewindSeq])
	require.NoError(t, err)
	require.Equal(t, "gap-24", b.ID, "the rewind shows where it happened: between turn 3 and the next")
	require.Equal(t, KindRewound, b.Entries[0].Note.Kind)
	require.Equal(t, "rewound to the end of turn 1 by console: turns 2 to 3 are no longer in the conversation, which goes on from the end of turn 1",
		b.Entries[0].Note.Text)
	var changed []string
	for _, c := range tr.Since(before) {
		changed = append(changed, c.ID)
	}
	require.Equal(t, []string{"turn-2", "turn-3", "gap-24"}, changed, "a live page gets the turns set apart again, and the marker")

	for _, e := range env[rewindSeq+1:] {
		_, err := tr.Apply(e)
		require.NoError(t, err)
	}
	byID := func(id string) *Block { t.Helper(); b := tr.Block(id); require.NotNil(t, b, id); return b }
	require.Nil(t, byID("turn-1").Rewound, "turn 1 is where the conversation goes on from")
	require.True(t, byID("turn-1").Rewindable())
	for _, id := range []string{"turn-2", "turn-3"} {
		require.Equal(t, &Rewound{ToTurn: 1, By: "console", Seq: rewindSeq}, byID(id).Rewound, id)
		require.False(t, byID(id).Rewindable(), "%s: a turn rewound past is not rewound to in place", id)
		require.Len(t, byID(id).Entries, 1, "%s stays readable", id)
	}
	require.Nil(t, byID("turn-4").Rewound)
	require.True(t, byID("turn-4").Rewindable())
}

func TestASecondRewindKeepsTheFirstMarkOnTurnsItAlreadySetApart(t *testing.T) {
	var evs []eventlog.Event
	evs = append(evs, sayTurn(1, "one")...)
	evs = append(evs, sayTurn(2, "two")...)
	evs = append(evs, eventlog.SessionRewound{ToTurn: 1, At: 6, Past: 2, Keep: 2})
	evs = append(evs, sayTurn(3, "three")...)
	evs = append(evs, eventlog.SessionRewound{ToTurn: 0, At: -1, Past: 3, Keep: 0, By: "ops"})
	tr, err := Build(log(t, evs...), signals.Prices{})
	require.NoError(t, err)
	require.Equal(t, int64(16), tr.Block("turn-2").Rewound.Seq, "set apart by the first rewind")
	require.Equal(t, int64(25), tr.Block("turn-1").Rewound.Seq)
	require.Equal(t, int64(25), tr.Block("turn-3").Rewound.Seq)
	require.Equal(t, "rewound to the end of turn 0 by ops: turns 1 to 3 are no longer in the conversation, which goes on from the end of turn 0",
		tr.Block("gap-25").Entries[0].Note.Text)
	require.Equal(t, "rewound to the end of turn 1: turn 2 is no longer in the conversation, which goes on from the end of turn 1",
		tr.Block("gap-16").Entries[0].Note.Text)
}
