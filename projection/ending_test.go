package projection

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/tetherdev/tether/signals"
)

func TestEndingOfReadsHowAndWhyARunEnded(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	closing := func(typ enumspb.EventType, attrs func(*historypb.HistoryEvent)) []*historypb.HistoryEvent {
		ev := &historypb.HistoryEvent{EventType: typ, EventTime: timestamppb.New(at)}
		if attrs != nil {
			attrs(ev)
		}
		return []*historypb.HistoryEvent{{EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED}, ev}
	}
	failed := closing(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, func(ev *historypb.HistoryEvent) {
		ev.Attributes = &historypb.HistoryEvent_WorkflowExecutionFailedEventAttributes{
			WorkflowExecutionFailedEventAttributes: &historypb.WorkflowExecutionFailedEventAttributes{
				Failure: &failurepb.Failure{Message: "invalid input", Cause: &failurepb.Failure{Message: "unknown tool nosuchtool",
					Cause: &failurepb.Failure{Message: "unknown tool"}}}}}
	})
	terminated := closing(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, func(ev *historypb.HistoryEvent) {
		ev.Attributes = &historypb.HistoryEvent_WorkflowExecutionTerminatedEventAttributes{
			WorkflowExecutionTerminatedEventAttributes: &historypb.WorkflowExecutionTerminatedEventAttributes{Reason: "pulled"}}
	})
	for _, tc := range []struct {
		events []*historypb.HistoryEvent
		want   Ending
		ok     bool
	}{
		{closing(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, nil), Ending{How: signals.EndedDisposed, At: at}, true},
		{failed, Ending{How: signals.EndedFailed, Why: "invalid input: unknown tool nosuchtool", At: at}, true},
		{terminated, Ending{How: signals.EndedTerminated, Why: "pulled", At: at}, true},
		{closing(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, nil), Ending{How: signals.EndedTimedOut, At: at}, true},
		{closing(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW, nil), Ending{}, false},
		{closing(enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, nil), Ending{}, false},
		{nil, Ending{}, false},
	} {
		got, ok := EndingOf(tc.events)
		require.Equal(t, tc.ok, ok)
		require.Equal(t, tc.want, got)
	}
	require.Equal(t, signals.EndedCanceled, EndedAs(enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED))
	require.Empty(t, EndedAs(enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING))
}
