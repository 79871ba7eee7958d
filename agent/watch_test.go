package agent

import (
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// A waiter wakes to ask the agent whether it is idle when the history
// says it may be: a status set to idle, a marker, or, in a run that
// writes no status, the workflow task that took a model's answer (a turn
// that ends on it writes nothing else). Where the run writes its status,
// that task is no reason to ask.
func TestAWaiterAsksWhenATurnMayHaveEnded(t *testing.T) {
	b := &historyBuilder{}
	turn := func(model string) []*historypb.HistoryEvent {
		return []*historypb.HistoryEvent{
			b.event(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, nil),
			b.event(enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, nil),
			b.scheduled(model),
			b.completed(b.id), // the activity just scheduled
			b.event(enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, nil),
		}
	}
	settles := func(r *runEvents, evs []*historypb.HistoryEvent) []int64 {
		var at []int64
		for _, ev := range evs {
			if grew, settled := r.classify(ev); grew && settled {
				at = append(at, ev.GetEventId())
			}
		}
		return at
	}

	var bare runEvents
	evs := turn(signals.ModelActivity)
	require.Equal(t, []int64{evs[4].GetEventId()}, settles(&bare, evs), "the task that took the answer")
	require.Empty(t, settles(&bare, turn(signals.ToolActivity)), "a tool's result ends no turn")

	var statuses runEvents
	evs = append([]*historypb.HistoryEvent{b.upsert(eventlog.StatusRunning)}, turn(signals.ModelActivity)...)
	require.Empty(t, settles(&statuses, evs))
	idle := b.upsert(eventlog.StatusIdle)
	require.Equal(t, []int64{idle.GetEventId()}, settles(&statuses, []*historypb.HistoryEvent{idle}))
}

type historyBuilder struct{ id int64 }

func (b *historyBuilder) event(t enumspb.EventType, set func(*historypb.HistoryEvent)) *historypb.HistoryEvent {
	b.id++
	ev := &historypb.HistoryEvent{EventId: b.id, EventType: t}
	if set != nil {
		set(ev)
	}
	return ev
}

func (b *historyBuilder) scheduled(activityType string) *historypb.HistoryEvent {
	return b.event(enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, func(ev *historypb.HistoryEvent) {
		ev.Attributes = &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{
			ActivityTaskScheduledEventAttributes: &historypb.ActivityTaskScheduledEventAttributes{
				ActivityType: &commonpb.ActivityType{Name: activityType}}}
	})
}

func (b *historyBuilder) completed(scheduled int64) *historypb.HistoryEvent {
	return b.event(enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, func(ev *historypb.HistoryEvent) {
		ev.Attributes = &historypb.HistoryEvent_ActivityTaskCompletedEventAttributes{
			ActivityTaskCompletedEventAttributes: &historypb.ActivityTaskCompletedEventAttributes{ScheduledEventId: scheduled}}
	})
}

func (b *historyBuilder) upsert(s eventlog.Status) *historypb.HistoryEvent {
	p, err := converter.GetDefaultDataConverter().ToPayload(string(s))
	if err != nil {
		panic(err)
	}
	return b.event(enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, func(ev *historypb.HistoryEvent) {
		ev.Attributes = &historypb.HistoryEvent_UpsertWorkflowSearchAttributesEventAttributes{
			UpsertWorkflowSearchAttributesEventAttributes: &historypb.UpsertWorkflowSearchAttributesEventAttributes{
				SearchAttributes: &commonpb.SearchAttributes{IndexedFields: map[string]*commonpb.Payload{signals.AttrStatus: p}}}}
	})
}
