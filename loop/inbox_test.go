package loop

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Seed 003's inbox: two lists, wake is optional, requests are recorded as
// they arrive and the loop moves at the next Resume.

func TestAnIdleAgentWakesOnlyForAWakefulMessage(t *testing.T) {
	cases := []struct {
		name  string
		list  eventlog.List
		wake  bool
		opens bool
	}{
		{"followup", eventlog.NextTurn, true, true},
		{"steer", eventlog.NextStep, true, true},
		{"inject", eventlog.NextStep, false, false},
		{"next-turn send without wake", eventlog.NextTurn, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDriver(t, signals.AgentOptions{})
			rd := d.step(Accept{Message: msg("m"), List: tc.list, Wake: tc.wake})
			require.Empty(t, rd.Commands, "a request moves nothing by itself")
			require.Equal(t, tc.opens, d.l.Status().Due)
			d.resume()
			require.Equal(t, tc.opens, d.l.State().InTurn)
			require.Equal(t, !tc.opens, d.l.Idle())
			d.requireOK()
		})
	}
}

func TestAWakefulMessageTakesAlongWhatWaitedWithoutWake(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.step(Accept{Message: msg("quiet"), List: eventlog.NextTurn})
	d.inject("context")
	d.resume()
	require.False(t, d.l.State().InTurn)
	d.steer("go")
	d.resume()
	call := take[CallModel](d)
	require.Equal(t, 1, call.Call.Turn)
	claimed := only[eventlog.InboxClaimed](d.events())
	require.Equal(t, []eventlog.MessageID{"context", "go", "quiet"},
		[]eventlog.MessageID{claimed[0].MessageID, claimed[1].MessageID, claimed[2].MessageID},
		"next-step input in order, then one next-turn prompt")
}

func TestTheRunningIntervalDrainsTheNextTurnListOnePromptATurn(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.step(Accept{Message: msg("quiet"), List: eventlog.NextTurn}) // no wake: drained while running
	d.followup("f2")
	d.resume()
	for range 3 {
		d.answerModel(answer("ok"))
	}
	evs := d.events()
	require.Len(t, only[eventlog.TurnEnd](evs), 3)
	status := only[eventlog.StatusChanged](evs)
	require.Equal(t, []eventlog.Status{eventlog.StatusRunning, eventlog.StatusIdle},
		[]eventlog.Status{status[0].Status, status[1].Status}, "consecutive turns share one running interval")
	require.Len(t, status, 2)
	for i, id := range []eventlog.MessageID{"f1", "quiet", "f2"} {
		claims := only[eventlog.InboxClaimed](evs)
		require.Equal(t, id, claims[i].MessageID)
		require.Equal(t, i+1, claims[i].Turn, "one prompt a turn")
	}
}

func TestFirstStepClaimsNextStepInputPlusOneFollowup(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.followup("f2")
	d.inject("i1")
	d.resume()
	call := take[CallModel](d)
	require.Equal(t, 1, call.Call.Turn)
	require.Equal(t, 1, call.Call.Step)
	st := d.l.State()
	require.Len(t, st.Inbox.NextTurn, 1, "one followup per turn")
	require.Equal(t, eventlog.MessageID("f2"), st.Inbox.NextTurn[0].ID)
	require.Empty(t, st.Inbox.NextStep)
	require.EqualValues(t, st.Len, call.Input.Ref.Upto, "the model reads the log up to its own position")
}

func TestCheckRefusesDuplicatesBadMessagesAndAnythingAfterDispose(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.inject("m1")
	cases := []struct {
		name string
		m    signals.Message
		want error
	}{
		{"duplicate", msg("m1"), signals.ErrDuplicateID},
		{"reused ID", signals.Message{ID: "m1", Content: "again"}, signals.ErrReusedID},
		{"empty", signals.Message{ID: "m2", Content: "  "}, signals.ErrEmptyMessage},
		{"too large", signals.Message{ID: "m3", Content: strings.Repeat("x", signals.MaxMessageBytes+1)}, signals.ErrMessageTooLarge},
		{"a hook-made ID", signals.Message{ID: "made:1.1", Content: "spoof"}, signals.ErrInvalidID},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, d.l.Check(tc.m), tc.want)
			before := d.l.State().Len
			rd := d.step(Accept{Message: tc.m, List: eventlog.NextTurn, Wake: true})
			require.ErrorIs(t, rd.Err, tc.want)
			require.Equal(t, before, d.l.State().Len, "a refused message never reaches the log")
		})
	}
	d.step(Dispose{})
	require.ErrorIs(t, d.l.Check(msg("m4")), signals.ErrDisposed)
	require.ErrorIs(t, d.l.CheckMaintain(signals.TaskCompact), signals.ErrDisposed)
}

func TestCancelWhileIdleOnlyClearsTheInbox(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.inject("i1")
	rd := d.step(Cancel{Cause: "clear"})
	require.Empty(t, rd.Commands, "nothing to interrupt")
	require.Zero(t, d.l.State().Inbox.Len())
	require.True(t, d.l.Due(), "the discards wait to be journaled")
	d.resume()
	require.Len(t, d.markers, 1, "going idle, the discards become durable in a marker")
	require.Equal(t, 0, d.l.State().Turn)
	require.Empty(t, only[eventlog.TurnCanceling](d.events()))
}

func TestCancelAbortsTheTurnAndDiscardsTheInboxUnlessKept(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(map[bool]string{false: "discard", true: "keep inbox"}[keep], func(t *testing.T) {
			d := newDriver(t, signals.AgentOptions{})
			d.followup("f1")
			d.resume()
			d.followup("f2")
			rd := d.step(Cancel{Cause: "operator stop", KeepInbox: keep})
			require.Contains(t, rd.Commands, Command(Interrupt{}))
			require.Equal(t, "operator stop", d.l.State().Canceling)
			d.cancelInflight()
			evs := d.events()
			ends := only[eventlog.TurnEnd](evs)
			require.Equal(t, eventlog.EndCanceled, ends[0].Reason)
			require.Equal(t, "operator stop", ends[0].Error)
			require.Equal(t, "operator stop", only[eventlog.TurnCanceling](evs)[0].Cause)
			if keep {
				require.True(t, d.l.State().InTurn, "the kept followup opens the next turn")
				require.Empty(t, only[eventlog.InboxDiscarded](evs))
			} else {
				require.False(t, d.l.State().InTurn)
				require.Equal(t, eventlog.DiscardCanceled, only[eventlog.InboxDiscarded](evs)[0].Outcome)
			}
			d.requireOK()
		})
	}
}

func TestARawCancelCauseOfAnySizeIsBounded(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.inject("i1")
	huge := strings.Repeat("é", 2<<20)
	d.step(Cancel{Cause: huge})
	d.cancelInflight()
	for _, e := range d.events() {
		var cause string
		switch e := e.(type) {
		case eventlog.InboxDiscarded:
			cause = e.Cause
		case eventlog.TurnEnd:
			cause = e.Error
		case eventlog.TurnCanceling:
			cause = e.Cause
		default:
			continue
		}
		require.LessOrEqual(t, len(cause), signals.MaxCauseBytes)
		require.True(t, strings.HasSuffix(cause, "…"))
	}
	d.requireOK()
}

func TestDisposeCancelsTheTurnThenDiscardsAndFinishes(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.followup("f2")
	d.step(Dispose{Cause: "bye"})
	require.Empty(t, seen[Finish](d), "the open turn closes first")
	d.cancelInflight()
	evs := d.events()
	require.Equal(t, "bye", only[eventlog.AgentDisposing](evs)[0].Cause)
	require.Equal(t, eventlog.EndCanceled, only[eventlog.TurnEnd](evs)[0].Reason)
	discard := only[eventlog.InboxDiscarded](evs)
	require.Equal(t, eventlog.MessageID("f2"), discard[0].MessageID)
	require.Equal(t, eventlog.DiscardDisposed, discard[0].Outcome)
	fin := seen[Finish](d)
	require.Len(t, fin, 1)
	require.Equal(t, d.l.State().Len, fin[0].Result.LogLen)
	require.Equal(t, eventlog.StatusIdle, d.l.State().Status)
}

func TestMaintenanceRunsOnlyInATrueIdlePhaseAndWorkWaitsForIt(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Compaction: &signals.Compaction{KeepRecent: 1}})
	for _, id := range []string{"f1", "f2"} {
		d.followup(id)
		d.resume()
		d.answerModel(answer(strings.Repeat("a long answer ", 20)))
	}
	d.followup("f3")
	d.step(Maintain{Task: signals.TaskCompact})
	d.resume()
	require.True(t, d.l.State().InTurn, "work comes before maintenance")
	require.Empty(t, inFlight[Summarize](d))
	d.answerModel(answer("ok"))
	sum := take[Summarize](d) // idle now: the task runs
	require.Equal(t, signals.SummaryActivityID(sum.Input.Ref.Upto), sum.ActivityID)
	d.followup("f4")
	d.resume()
	require.False(t, d.l.State().InTurn, "a message arriving meanwhile waits")
	d.step(Summarized{Text: "summary"})
	answers := seen[AnswerMaintenance](d)
	require.Len(t, answers, 1)
	require.NoError(t, answers[0].Err)
	require.Less(t, answers[0].Result.After, answers[0].Result.Before)
	done := only[eventlog.MaintenanceDone](d.events())
	require.Equal(t, answers[0].Result.After, done[0].After)
	require.True(t, d.l.State().InTurn, "then the waiting message opens its turn")
}

func TestDisposeEndsQueuedMaintenance(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.step(Maintain{Task: signals.TaskCompact})
	d.step(Dispose{})
	d.cancelInflight()
	answers := seen[AnswerMaintenance](d)
	require.Len(t, answers, 1)
	require.ErrorIs(t, answers[0].Err, signals.ErrDisposed)
	require.Empty(t, d.l.State().Maintenance)
	require.Len(t, seen[Finish](d), 1)
}

func TestPendingContentTooLargeForASeedOpensATurnThatDrainsIt(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{}, func(c *Config) { c.MaxSeedBytes = 1000 })
	d.inject("small")
	d.resume()
	require.False(t, d.l.State().InTurn, "an inject alone waits")
	d.step(Accept{Message: signals.Message{ID: "big", Content: strings.Repeat("x", 1200)}, List: eventlog.NextStep})
	d.resume()
	require.True(t, d.l.State().InTurn, "too much pending to carry: a turn drains it")
	require.Empty(t, d.l.State().Inbox.NextStep)
	d.answerModel(answer("read it all"))
	d.step(Continue{})
	// The context is larger than a seed may carry: under rules 3 it is
	// summarised first, whatever few messages it has (see summaryKeep).
	take[Summarize](d)
	d.step(Summarized{Text: "summary"})
	require.Len(t, seen[ContinueAsNew](d), 1, "and the run may continue as new again")
}
