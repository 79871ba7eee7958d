package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

var start = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

// scheduled is a followup sent for at.
func scheduled(id, content string, at time.Time) signals.Send {
	return signals.Send{Message: signals.Message{ID: eventlog.MessageID(id), Content: content}, List: eventlog.NextTurn, Wake: true, At: at}
}

func TestAScheduledFollowupArrivesFromTheTimerAtItsTime(t *testing.T) {
	h := newHarness(t, byStep(nil))
	h.env.SetStartTime(start)
	var accepted, tooFar error = errNoOutcome, errNoOutcome
	h.update(time.Minute, signals.SendUpdate.Name, "later", scheduled("later", "the daily report", start.Add(time.Hour)), &accepted)
	h.update(time.Minute, signals.SendUpdate.Name, "far", scheduled("far", "next decade", start.Add(10*365*24*time.Hour)), &tooFar)
	var before signals.StatusView
	h.at(30*time.Minute, func() { before = h.status() })
	evs := h.run(tools, "", 2*time.Hour)

	require.NoError(t, accepted)
	var app *temporal.ApplicationError
	require.ErrorAs(t, tooFar, &app)
	require.Contains(t, app.Error(), signals.ErrScheduleTooFar.Error())
	require.Equal(t, 1, before.ScheduledLen)
	require.Equal(t, start.Add(time.Hour), before.NextAt.UTC())
	require.Equal(t, "the daily report", before.Scheduled[0].Content)
	require.False(t, before.InTurn, "nothing happened before its time")

	i := indexOf(evs, func(e eventlog.Event) bool { _, ok := e.(eventlog.InboxInserted); return ok })
	require.Positive(t, i)
	ins := evs[i].(eventlog.InboxInserted)
	require.Equal(t, &eventlog.Initiator{Kind: eventlog.ByTimer}, ins.From)
	require.Equal(t, "the daily report", ins.Content)
	require.Equal(t, start.Add(time.Hour), h.at0(i), "delivered when the env's clock reached its time")
	require.Len(t, only[eventlog.TurnStart](evs), 1, "it opened a turn")
	require.Equal(t, eventlog.ProgressDone, eventlog.ConsumedWork(evs)["later"].Progress)
}

func TestAScheduledMessageSurvivesContinueAsNew(t *testing.T) {
	h := newHarnessWith(t, Config{MaxRunTurns: 1}, byStep(nil), time.Minute)
	h.env.SetStartTime(start)
	h.signal(time.Minute, signals.SendSignal.Name, scheduled("later", "after the switch", start.Add(time.Hour)))
	h.signal(2*time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "now", Content: "now"})
	h.env.ExecuteWorkflow(signals.AgentWorkflow, signals.AgentInput{Options: tools})
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(h.env.GetWorkflowError(), &can), "%v", h.env.GetWorkflowError())
	var next signals.AgentInput
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.NotNil(t, next.Seed)
	require.Len(t, next.Seed.State.Scheduled, 1, "the seed carries it")

	h2 := newHarness(t, byStep(nil))
	h2.env.SetStartTime(start.Add(10 * time.Minute))
	h2.signal(2*time.Hour, signals.DisposeSignal.Name, signals.Dispose{Cause: "test over"})
	h2.env.ExecuteWorkflow(signals.AgentWorkflow, next)
	require.NoError(t, h2.env.GetWorkflowError())
	evs := h2.log()
	i := indexOf(evs, func(e eventlog.Event) bool { _, ok := e.(eventlog.InboxInserted); return ok })
	require.GreaterOrEqual(t, i, 0)
	require.Equal(t, &eventlog.Initiator{Kind: eventlog.ByTimer}, evs[i].(eventlog.InboxInserted).From)
	require.Equal(t, start.Add(time.Hour), h2.at0(i), "the next run armed its timer again for the same time")
	require.Len(t, only[eventlog.TurnStart](evs), 1)
	require.Equal(t, eventlog.ProgressDone, eventlog.ConsumedWork(evs)["later"].Progress)
}

func TestATurnCancelLeavesAScheduledTimerRunning(t *testing.T) {
	h := newHarness(t, byStep(nil), 10*time.Minute)
	h.env.SetStartTime(start)
	h.signal(time.Minute, signals.SendSignal.Name, scheduled("later", "still comes", start.Add(time.Hour)))
	h.signal(2*time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "f", Content: "work"})
	h.signal(5*time.Minute, signals.CancelSignal.Name, signals.Cancel{Cause: "stop"})
	evs := h.run(tools, "", 2*time.Hour)
	ends := only[eventlog.TurnEnd](evs)
	require.Len(t, ends, 2)
	require.Equal(t, eventlog.EndCanceled, ends[0].Reason)
	require.Equal(t, eventlog.ProgressDone, eventlog.ConsumedWork(evs)["later"].Progress)
}
