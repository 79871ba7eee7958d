package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Turns 1 to 3 answer at 0, 1 and 2 minutes (each model call takes 10 s);
// then the rewind update brings the agent back to the end of turn 1 and a
// followup opens turn 4 on that conversation.
func TestTheRewindUpdateRecordsTheRewindAndTheNextTurnContinuesFromThatTurn(t *testing.T) {
	h := newHarness(t, func(in signals.ModelInput) (signals.ModelOutput, error) {
		return answer("answer " + itoa(in.Call.Turn)), nil
	}, 10*time.Second)
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f2", Content: "two"})
	h.signal(2*time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f3", Content: "three"})
	results := map[string]*error{}
	for _, u := range []struct {
		id string
		at time.Duration
		in signals.Rewind
	}{
		{"running", 2*time.Minute + 5*time.Second, signals.Rewind{ToTurn: 1}},
		{"future", 3 * time.Minute, signals.Rewind{ToTurn: 7}},
		{"negative", 3 * time.Minute, signals.Rewind{ToTurn: -1}},
		{"ok", 4 * time.Minute, signals.Rewind{ToTurn: 1, By: "ops"}},
		{"again", 5 * time.Minute, signals.Rewind{ToTurn: 1, By: "ops"}},
		{"past", 6 * time.Minute, signals.Rewind{ToTurn: 2}},
	} {
		err := errors.New("not answered")
		results[u.id] = &err
		h.update(u.at, signals.RewindUpdate.Name, u.id, u.in, &err)
	}
	h.signal(7*time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f4", Content: "four"})
	evs := h.run(signals.AgentOptions{}, "one", time.Hour)

	for id, typ := range map[string]string{"running": signals.RejectRewind, "future": signals.RejectRewind,
		"negative": signals.RejectRewind, "past": signals.RejectLost} {
		var app *temporal.ApplicationError
		require.True(t, errors.As(*results[id], &app), "%s: %v", id, *results[id])
		require.Equal(t, typ, app.Type(), id)
		require.False(t, app.NonRetryable() == false, id)
	}
	require.NoError(t, *results["ok"])
	require.NoError(t, *results["again"], "a rewind to where the agent stands is accepted, recording nothing")

	rw := only[eventlog.SessionRewound](evs)
	require.Equal(t, []eventlog.SessionRewound{{ToTurn: 1, At: rw[0].At, Past: 3, Keep: 2, By: "ops"}}, rw,
		"one rewind recorded: refusals and the repeat record nothing")
	ends := only[eventlog.TurnEnd](evs)
	require.Equal(t, []int{1, 2, 3, 4}, []int{ends[0].Turn, ends[1].Turn, ends[2].Turn, ends[3].Turn})
	require.Len(t, only[eventlog.UserMessage](evs), 4, "the turns rewound past stay in the log")

	want := []eventlog.Message{
		{Role: eventlog.RoleUser, Content: "one"}, {Role: eventlog.RoleAssistant, Content: "answer 1"},
		{Role: eventlog.RoleUser, Content: "four"}, {Role: eventlog.RoleAssistant, Content: "answer 4"},
	}
	require.Equal(t, want, eventlog.ConversationOf(evs), "the log folds to turn 1's conversation, then turn 4")
}
