package agent

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

func notifications(t *testing.T, evs []eventlog.Event) []Notification {
	t.Helper()
	var n notifier
	var out []Notification
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for i, e := range evs {
		env, err := eventlog.Encode(int64(i), at.Add(time.Duration(i)*time.Second), "", e)
		require.NoError(t, err)
		out = append(out, n.apply(env, e)...)
	}
	return out
}

func kinds(ns []Notification) []Kind {
	out := make([]Kind, len(ns))
	for i, n := range ns {
		out[i] = n.Kind
	}
	return out
}

func TestNotificationsFollowTheLog(t *testing.T) {
	server := eventlog.Failure{Kind: eventlog.FailureServer, Message: "500"}
	cases := []struct {
		name string
		log  []eventlog.Event
		want []Kind
	}{
		{"inbox and status", []eventlog.Event{
			eventlog.InboxInserted{MessageID: "a", List: eventlog.NextTurn},
			eventlog.StatusChanged{Status: eventlog.StatusRunning},
			eventlog.TurnStart{Turn: 1},
			eventlog.InboxClaimed{MessageID: "a", List: eventlog.NextTurn, Turn: 1},
			eventlog.TurnEnd{Turn: 1, Reason: eventlog.EndCompleted},
			eventlog.StatusChanged{Status: eventlog.StatusIdle},
		}, []Kind{KindInserted, KindStatus, KindClaimed, KindSettled, KindStatus}},
		{"a retry chain settles once, after its terminal turn", []eventlog.Event{
			eventlog.TurnStart{Turn: 1},
			eventlog.AssistantAttempt{Failure: server},
			eventlog.TurnEnd{Turn: 1, Reason: eventlog.EndFailed},
			eventlog.TurnStart{Turn: 2, RetryOf: 1},
			eventlog.AssistantAttempt{Failure: server},
			eventlog.TurnEnd{Turn: 2, Reason: eventlog.EndFailed},
			eventlog.StatusChanged{Status: eventlog.StatusIdle},
		}, []Kind{KindError, KindError, KindSettled, KindStatus}},
		{"a hook failure is an error without an attempt", []eventlog.Event{
			eventlog.TurnStart{Turn: 1},
			eventlog.TurnEnd{Turn: 1, Reason: eventlog.EndFailed, Error: "hook x failed"},
			eventlog.TurnStart{Turn: 2},
		}, []Kind{KindError, KindSettled}},
		{"a canceled call is not an error", []eventlog.Event{
			eventlog.TurnStart{Turn: 1},
			eventlog.AssistantAttempt{Failure: eventlog.Failure{Kind: eventlog.FailureCanceled}},
			eventlog.TurnEnd{Turn: 1, Reason: eventlog.EndCanceled},
			eventlog.InboxDiscarded{MessageID: "b", List: eventlog.NextStep, Outcome: eventlog.DiscardCanceled},
		}, []Kind{KindSettled, KindDiscarded}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, kinds(notifications(t, tc.log)))
		})
	}
}

func TestSettlementOfAFailedTurnPointsAtItsTurnEnd(t *testing.T) {
	ns := notifications(t, []eventlog.Event{
		eventlog.TurnStart{Turn: 1},
		eventlog.TurnEnd{Turn: 1, Reason: eventlog.EndFailed, Error: "step limit"},
		eventlog.StatusChanged{Status: eventlog.StatusIdle},
	})
	settled := ns[1]
	require.Equal(t, KindSettled, settled.Kind)
	require.EqualValues(t, 1, settled.Seq, "decided by the next event, about the turn end")
	require.Equal(t, &eventlog.Settlement{Turn: 1, Reason: eventlog.EndFailed, Error: "step limit"}, settled.Settlement)
}

func TestAScheduledMessageIsNotifiedWithItsTimeThenAsInserted(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	ns := notifications(t, []eventlog.Event{
		eventlog.MessageScheduled{MessageID: "s", List: eventlog.NextTurn, Wake: true, At: at},
		eventlog.InboxInserted{MessageID: "s", List: eventlog.NextTurn, Wake: true, From: &eventlog.Initiator{Kind: eventlog.ByTimer}},
	})
	require.Equal(t, []Kind{KindScheduled, KindInserted}, kinds(ns))
	require.Equal(t, at, ns[0].DeliverAt)
	require.Equal(t, eventlog.MessageID("s"), ns[0].MessageID)
	require.True(t, ns[1].DeliverAt.IsZero())
}
