package eventlog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func fold(t *testing.T, log ...Event) (State, error) {
	t.Helper()
	s := NewState(0)
	for _, e := range log {
		if err := s.Apply(e); err != nil {
			return s, err
		}
	}
	return s, nil
}

func TestScheduledMessageWaitsOutsideTheInboxUntilItsTimerDeliversIt(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	timer := &Initiator{Kind: ByTimer}
	s, err := fold(t, MessageScheduled{MessageID: "m", List: NextTurn, Content: "report", Wake: true, At: at})
	require.NoError(t, err)
	require.Equal(t, []Scheduled{{ID: "m", List: NextTurn, Content: "report", Wake: true, At: at}}, s.Scheduled)
	require.Zero(t, s.Inbox.Len(), "not in the inbox before its time")
	require.False(t, s.Inbox.Due())

	s, err = fold(t, MessageScheduled{MessageID: "m", List: NextTurn, Content: "report", Wake: true, At: at},
		InboxInserted{MessageID: "m", List: NextTurn, Content: "report", Wake: true, From: timer})
	require.NoError(t, err)
	require.Empty(t, s.Scheduled)
	require.Equal(t, []Pending{{ID: "m", Content: "report", Wake: true}}, s.Inbox.NextTurn)

	s, err = fold(t, MessageScheduled{MessageID: "m", List: NextStep, At: at},
		InboxDiscarded{MessageID: "m", List: NextStep, Outcome: DiscardDisposed})
	require.NoError(t, err)
	require.Empty(t, s.Scheduled, "a discarded scheduled message is gone")
}

func TestScheduleFoldRejectsInvalidTransitions(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	timer := &Initiator{Kind: ByTimer}
	cases := []struct {
		name string
		log  []Event
	}{
		{"timer delivers a message never scheduled", []Event{InboxInserted{MessageID: "m", List: NextTurn, From: timer}}},
		{"timer delivers into another list", []Event{
			MessageScheduled{MessageID: "m", List: NextTurn, At: at}, InboxInserted{MessageID: "m", List: NextStep, From: timer}}},
		{"timer delivers twice", []Event{
			MessageScheduled{MessageID: "m", List: NextTurn, At: at}, InboxInserted{MessageID: "m", List: NextTurn, From: timer},
			InboxInserted{MessageID: "m", List: NextTurn, From: timer}}},
		{"scheduled twice", []Event{MessageScheduled{MessageID: "m", List: NextTurn, At: at}, MessageScheduled{MessageID: "m", List: NextTurn, At: at}}},
		{"scheduled while pending", []Event{InboxInserted{MessageID: "m", List: NextTurn}, MessageScheduled{MessageID: "m", List: NextTurn, At: at}}},
		{"inserted while scheduled", []Event{MessageScheduled{MessageID: "m", List: NextTurn, At: at}, InboxInserted{MessageID: "m", List: NextTurn}}},
		{"scheduled without a time", []Event{MessageScheduled{MessageID: "m", List: NextTurn}}},
		{"scheduled into an unknown list", []Event{MessageScheduled{MessageID: "m", List: "later", At: at}}},
		{"claimed before its time", []Event{MessageScheduled{MessageID: "m", List: NextTurn, At: at}, TurnStart{Turn: 1},
			InboxClaimed{MessageID: "m", List: NextTurn, Turn: 1}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fold(t, tc.log...)
			require.ErrorIs(t, err, ErrInvalidTransition)
		})
	}
}

func TestConsumedWorkFollowsAScheduledMessage(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	log := []Event{
		MessageScheduled{MessageID: "s", List: NextTurn, Wake: true, At: at},
		MessageScheduled{MessageID: "gone", List: NextStep, At: at},
	}
	require.Equal(t, Outcome{List: NextTurn, Progress: ProgressScheduled}, ConsumedWork(log)["s"])
	log = append(log,
		InboxInserted{MessageID: "s", List: NextTurn, Wake: true, From: &Initiator{Kind: ByTimer}},
		InboxDiscarded{MessageID: "gone", List: NextStep, Outcome: DiscardDisposed},
	)
	require.Equal(t, Outcome{List: NextTurn, Progress: ProgressPending}, ConsumedWork(log)["s"])
	log = append(log, TurnStart{Turn: 1}, InboxClaimed{MessageID: "s", List: NextTurn, Turn: 1}, TurnEnd{Turn: 1, Reason: EndCompleted})
	got := ConsumedWork(log)
	require.Equal(t, Outcome{List: NextTurn, Progress: ProgressDone, Turn: 1, TurnEnd: EndCompleted}, got["s"])
	require.Equal(t, Outcome{List: NextStep, Progress: ProgressDiscarded, Discard: DiscardDisposed}, got["gone"])
}
