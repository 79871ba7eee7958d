package loop

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// schedule sends message id to list for at (a followup when list is
// next-turn), as the shell does for a send with a time.
func (d *driver) schedule(id string, list eventlog.List, at time.Time) Ready {
	return d.step(Accept{Message: msg(id), List: list, Wake: true, At: at})
}

// fire fires the in-flight timer id at its time.
func (d *driver) fire(id string) {
	d.t.Helper()
	for i, c := range d.inflight {
		if st, ok := c.(StartTimer); ok && st.ID == id {
			d.inflight = append(d.inflight[:i:i], d.inflight[i+1:]...)
			d.now = d.now.Add(st.After)
			d.step(TimerFired{ID: id})
			return
		}
	}
	d.t.Fatalf("timer %s is not in flight (in flight: %v)", id, d.inflight)
}

func TestAScheduledFollowupWaitsForItsTimerThenOpensATurnFromTheTimer(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	at := t0.Add(time.Hour)
	rd := d.schedule("later", eventlog.NextTurn, at)
	require.NoError(t, rd.Err)
	require.Equal(t, []Command{StartTimer{ID: signals.ScheduleTimer("later"), After: at.Sub(d.now)}}, rd.Commands)
	require.Len(t, rd.Recorded, 1)
	require.Equal(t, eventlog.MessageRef("later"), rd.Recorded[0].Ref, "content is in the payload that brought it")
	require.Equal(t, []eventlog.Scheduled{{ID: "later", List: eventlog.NextTurn, Content: "content later", Wake: true, At: at}},
		d.l.State().Scheduled)
	d.resume()
	require.False(t, d.l.State().InTurn, "nothing is due before its time")
	require.True(t, d.l.Idle())

	d.fire(signals.ScheduleTimer("later"))
	require.Empty(t, d.l.State().Scheduled)
	require.True(t, d.l.State().InTurn, "it wakes the agent like any followup")
	ins := only[eventlog.InboxInserted](d.events())
	require.Len(t, ins, 1)
	require.Equal(t, &eventlog.Initiator{Kind: eventlog.ByTimer}, ins[0].From)
	require.Equal(t, "content later", ins[0].Content)
	claim := only[eventlog.InboxClaimed](d.events())
	require.Equal(t, eventlog.MessageID("later"), claim[0].MessageID)
	page := d.l.Page(signals.LogRequest{})
	for _, env := range page.Events {
		if env.Type == eventlog.TypeInboxInserted {
			require.Equal(t, eventlog.MessageRef("later"), env.Ref, "delivery repeats no content in history")
		}
	}
	d.answerModel(answer("done"))
	d.requireOK()
}

func TestASendAtOrBeforeNowIsDeliveredAtOnce(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	rd := d.schedule("past", eventlog.NextTurn, t0.Add(-time.Minute))
	require.NoError(t, rd.Err)
	require.Empty(t, rd.Commands)
	require.Empty(t, d.l.State().Scheduled)
	require.Len(t, d.l.State().Inbox.NextTurn, 1)
	require.Nil(t, only[eventlog.InboxInserted](d.events())[0].From, "from the user, as a send without a time")
}

func TestAScheduledMessageFiringDuringATurnJoinsTheInbox(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.schedule("s", eventlog.NextStep, t0.Add(time.Minute))
	d.followup("f")
	d.resume()
	require.True(t, d.l.State().InTurn)
	d.fire(signals.ScheduleTimer("s"))
	require.Equal(t, []eventlog.Pending{{ID: "s", Content: "content s", Wake: true}}, d.l.State().Inbox.NextStep)
	d.answerModel(answer("one"))
	require.Len(t, inFlight[CallModel](d), 1, "the steer it became takes another step")
	d.answerModel(answer("two"))
	require.Equal(t, eventlog.MessageID("s"), only[eventlog.InboxClaimed](d.events())[1].MessageID)
	d.requireOK()
}

func TestAScheduledMessageIDIsADuplicateFromTheStart(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.schedule("s", eventlog.NextTurn, t0.Add(time.Hour))
	require.ErrorIs(t, d.l.Check(msg("s")), signals.ErrDuplicateID)
	rd := d.schedule("s", eventlog.NextTurn, t0.Add(2*time.Hour))
	require.ErrorIs(t, rd.Err, signals.ErrDuplicateID)
	require.Len(t, d.l.State().Scheduled, 1)
}

func TestSchedulingRefusesTooFarAheadAndTooManyAndTooLarge(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{}, func(c *Config) { c.MaxSeedBytes = 4000 })
	rd := d.schedule("far", eventlog.NextTurn, t0.Add(signals.MaxScheduleAhead+time.Hour))
	require.ErrorIs(t, rd.Err, signals.ErrScheduleTooFar)
	big := signals.Message{ID: "big", Content: strings.Repeat("x", 4001)}
	rd = d.step(Accept{Message: big, List: eventlog.NextTurn, Wake: true, At: t0.Add(time.Hour)})
	require.ErrorIs(t, rd.Err, signals.ErrTooManyScheduled, "more than a seed may carry")
	for i := range signals.MaxScheduled {
		require.NoError(t, d.schedule("s"+strings.Repeat("i", i+1), eventlog.NextTurn, t0.Add(time.Hour)).Err)
	}
	before := d.l.State().Len
	rd = d.schedule("one-more", eventlog.NextTurn, t0.Add(time.Hour))
	require.ErrorIs(t, rd.Err, signals.ErrTooManyScheduled)
	require.Equal(t, before, d.l.State().Len, "a refused schedule never reaches the log")
	require.ErrorIs(t, d.l.CheckSchedule(t0.Add(time.Hour), d.now, "x"), signals.ErrTooManyScheduled)
	require.NoError(t, d.l.CheckSchedule(time.Time{}, d.now, "x"), "now needs no room")
	st := d.l.Status()
	require.Equal(t, signals.MaxScheduled, st.ScheduledLen)
	require.Equal(t, t0.Add(time.Hour), st.NextAt)
}

func TestCancelLeavesScheduledMessagesAndDisposeDiscardsThem(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.schedule("s", eventlog.NextTurn, t0.Add(time.Hour))
	d.followup("f")
	d.resume()
	d.step(Cancel{Cause: "stop"})
	d.cancelInflight()
	require.Len(t, d.l.State().Scheduled, 1, "a cancel without keepInbox leaves what is not in the inbox yet")
	require.Len(t, inFlight[StartTimer](d), 1, "and its timer")
	d.fire(signals.ScheduleTimer("s"))
	require.True(t, d.l.State().InTurn, "so it still arrives")
	d.answerModel(answer("ok"))

	d.schedule("s2", eventlog.NextTurn, d.now.Add(time.Hour))
	d.step(Dispose{Cause: "bye"})
	d.resume()
	discard := only[eventlog.InboxDiscarded](d.events())
	require.Equal(t, eventlog.InboxDiscarded{MessageID: "s2", List: eventlog.NextTurn, Outcome: eventlog.DiscardDisposed, Cause: "bye"},
		discard[len(discard)-1])
	require.Empty(t, d.l.State().Scheduled)
	require.Len(t, seen[Finish](d), 1)
	d.fire(signals.ScheduleTimer("s2"))
	require.Len(t, only[eventlog.InboxInserted](d.events()), 2, "never delivered after a dispose")
	d.requireOK()
}

func TestADisposingAgentTakesNoScheduledMessage(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.schedule("s", eventlog.NextTurn, t0.Add(time.Minute))
	d.followup("f")
	d.resume()
	d.step(Dispose{})
	d.fire(signals.ScheduleTimer("s")) // while the turn closes
	require.Len(t, only[eventlog.InboxInserted](d.events()), 1)
	d.cancelInflight()
	require.Len(t, seen[Finish](d), 1)
	require.Equal(t, eventlog.MessageID("s"), only[eventlog.InboxDiscarded](d.events())[0].MessageID)
	d.requireOK()
}

func TestARestoredRunRearmsEveryScheduledTimer(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.schedule("soon", eventlog.NextTurn, t0.Add(time.Minute))
	d.schedule("later", eventlog.NextStep, t0.Add(time.Hour))
	d.step(Continue{})
	require.Len(t, seen[ContinueAsNew](d), 1)
	seed, err := d.l.Seed()
	require.NoError(t, err)
	require.Len(t, seed.State.Scheduled, 2)

	now := t0.Add(2 * time.Minute) // "soon" passed while the runs switched
	next := &driver{t: t, l: Restore(Config{AgentID: "a1"}, seed), now: now}
	require.ErrorIs(t, next.l.Check(msg("later")), signals.ErrDuplicateID)
	next.resume()
	timers := inFlight[StartTimer](next)
	require.Equal(t, []StartTimer{
		{ID: signals.ScheduleTimer("soon"), After: 0},
		{ID: signals.ScheduleTimer("later"), After: t0.Add(time.Hour).Sub(next.now)},
	}, timers)
	next.resume()
	require.Len(t, inFlight[StartTimer](next), 2, "armed once")
	next.fire(signals.ScheduleTimer("soon"))
	require.True(t, next.l.State().InTurn)
	require.Equal(t, eventlog.MessageID("soon"), only[eventlog.InboxClaimed](next.events())[0].MessageID)
	next.requireOK()
}
