package eventlog

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A session starts once per agent, before its first turn: the fold refuses
// a second start and a start after a turn, and a seed's state carries it.
func TestSessionStartedFoldsOncePerAgentBeforeItsFirstTurn(t *testing.T) {
	cases := []struct {
		name string
		log  []Event
		ok   bool
	}{
		{"before the first turn", []Event{InboxInserted{MessageID: "m", List: NextTurn}, SessionStarted{Hooks: []string{"h"}}}, true},
		{"with errors, then a turn", []Event{SessionStarted{Hooks: []string{"h"}, Errors: []string{"boom"}}, TurnStart{Turn: 1}}, true},
		{"twice", []Event{SessionStarted{}, SessionStarted{}}, false},
		{"inside the first turn", []Event{TurnStart{Turn: 1}, SessionStarted{}}, false},
		{"after a turn", []Event{TurnStart{Turn: 1}, TurnEnd{Turn: 1, Reason: EndCompleted}, SessionStarted{}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewState(0)
			var err error
			for _, e := range tc.log {
				if err = s.Apply(e); err != nil {
					break
				}
			}
			if !tc.ok {
				require.ErrorIs(t, err, ErrInvalidTransition)
				return
			}
			require.NoError(t, err)
			require.True(t, s.SessionStarted)
		})
	}
	require.False(t, NewState(0).SessionStarted, "a new log has not started")
}
