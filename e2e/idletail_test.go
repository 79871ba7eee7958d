package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// gatedModel is the scripted model, except that each call waits until the
// test lets it answer.
type gatedModel struct{ entered, pass chan struct{} }

func (g gatedModel) Complete(ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	select {
	case g.entered <- struct{}{}:
	case <-ctx.Done():
		return eventlog.AssistantMessage{}, ctx.Err()
	}
	select {
	case <-g.pass:
	case <-ctx.Done():
		return eventlog.AssistantMessage{}, ctx.Err()
	}
	return scripted.Provider{}.Complete(ctx, req)
}

// A turn ends on a model answer, and a message arrives before the workflow
// task that takes the answer: in one task the turn ends with the plain idle
// tail (which the run journals with no marker, only the status upsert to
// idle) and the message opens the next turn (journaled in a marker). The
// projection derives the tail before that marker; it used to read the task
// as "journaled" and leave a gap ("journal gap: seq 19 follows 14", seen in
// CI with a child's report in the message's place).
func TestATurnEndingAsAMessageArrivesIsProjectedWhole(t *testing.T) {
	inBothModes(t, turnEndingAsAMessageArrives)
}

func turnEndingAsAMessageArrives(t *testing.T, e *env) {
	gm := gatedModel{entered: make(chan struct{}, 4), pass: make(chan struct{})}
	t.Cleanup(func() { close(gm.pass) })
	e.providers = map[string]activities.Provider{"gated": gm}
	ctx := ctxT(t, 2*time.Minute)

	// Activities on one worker, workflow tasks on another, so workflow
	// tasks can stop while the model call goes on.
	e.workerOptions = worker.Options{DisableWorkflowWorker: true}
	e.startWorker()
	e.workerOptions = worker.Options{LocalActivityWorkerOnly: true}
	wf := e.startWorker()

	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "tail-and-message",
		Options: signals.AgentOptions{Provider: "gated"}, First: "/say one"})
	require.NoError(t, err)
	<-gm.entered
	wf.Stop()
	gm.pass <- struct{}{} // the answer completes the activity; its workflow task waits
	waitFor(t, 30*time.Second, "the model activity to complete", func() bool {
		history, err := projection.Fetch(ctx, e.c, h.ID, "")
		require.NoError(t, err)
		last := history[len(history)-1].GetEventType()
		return last == enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED
	})
	_, err = h.Followup(ctx, "/say two", agent.Unacknowledged()) // delivered after the answer, before the task
	require.NoError(t, err)
	e.startWorker()
	<-gm.entered
	gm.pass <- struct{}{}
	waitIdle(ctx, t, h)

	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	requireTailAndMarkerInOneTask(t, history, e.cfg.NoSearchAttributes)
	evs := requireReplaysAndProjects(ctx, t, e, h, "idle-tail-then-message")
	require.Len(t, ofType[eventlog.TurnEnd](evs), 2)
}

// requireTailAndMarkerInOneTask checks that the history holds the case: a
// workflow task whose commands set the status to idle and then carry a
// journal (in a marker or an activity's input); in a run without search
// attributes (bare), a task that took a model call's answer and carries a
// journal, with no status upsert anywhere.
func requireTailAndMarkerInOneTask(t *testing.T, history []*historypb.HistoryEvent, bare bool) {
	t.Helper()
	idle, answered, scheduled := false, false, map[int64]string{}
	for _, ev := range history {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			id := scheduled[ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()]
			_, _, ok := signals.ParseModelActivityID(id)
			answered = answered || ok
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			idle, answered = bare && answered, false
		case enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
			p := ev.GetUpsertWorkflowSearchAttributesEventAttributes().GetSearchAttributes().GetIndexedFields()[signals.AttrStatus]
			require.False(t, bare && p != nil, "a run without search attributes upserted its status")
			var status string
			if p != nil && converter.GetDefaultDataConverter().FromPayload(p, &status) == nil && status == string(eventlog.StatusIdle) {
				idle = true
			}
		case enumspb.EVENT_TYPE_MARKER_RECORDED, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			if idle {
				return
			}
			if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
				scheduled[ev.GetEventId()] = a.GetActivityId()
			}
		}
	}
	t.Fatal("no workflow task ended a turn with the plain idle tail and then journaled")
}
