package projection

import (
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// task is what one workflow task's completion wrote, followed to find the
// idle tails a run writes no marker for (signals.IdleTail): a task that
// set the status search attribute to idle and journaled nothing (no
// journal marker, activity input, result or seed) ended the turn of the
// model call completed before it, at the task's time.
type task struct {
	open      bool
	at        time.Time // the task's started event time: workflow.Now in it
	model     string    // the model activity completed before the task
	idle      bool      // it upserted the status search attribute to idle
	journaled bool      // a command of it carried a journal
}

// track follows workflow tasks through ev, before ev is read: a task's
// events are its completion and the events of its commands, which follow
// it at once.
func (s *sources) track(ev *historypb.HistoryEvent) error {
	switch t := ev.GetEventType(); {
	case t == enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
		s.taskAt = ev.GetEventTime().AsTime()
	case t == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
		if err := s.endTask(); err != nil {
			return err
		}
		s.task = task{open: true, at: s.taskAt, model: s.lastModel}
		return nil
	case t == enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
		s.task.idle = s.task.idle || setsIdle(ev.GetUpsertWorkflowSearchAttributesEventAttributes())
		return nil
	case commandEvents[t]:
		return nil
	}
	return s.endTask()
}

// journaled notes that the open task's commands carried a journal.
func (s *sources) journaled() { s.task.journaled = true }

// endTask derives the idle tail of the task that just ended, if it has one.
func (s *sources) endTask() error {
	t := s.task
	s.task = task{}
	if !t.open || !t.idle || t.journaled || t.model == "" {
		return nil
	}
	from := int64(0)
	if n := len(s.journal); n > 0 {
		from = s.journal[n-1].Seq + 1
	}
	j, err := signals.IdleTail(from, t.at, t.model)
	if err != nil {
		return err
	}
	s.journal = append(s.journal, j.Envelopes()...)
	return nil
}

// commandEvents are the events a workflow task's commands write right
// after its completion event.
var commandEvents = map[enumspb.EventType]bool{
	enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:                              true,
	enumspb.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED:                       true,
	enumspb.EVENT_TYPE_ACTIVITY_TASK_CANCELED:                               true,
	enumspb.EVENT_TYPE_TIMER_STARTED:                                        true,
	enumspb.EVENT_TYPE_TIMER_CANCELED:                                       true,
	enumspb.EVENT_TYPE_MARKER_RECORDED:                                      true,
	enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:                    true,
	enumspb.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED:                         true,
	enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:             true,
	enumspb.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:         true,
	enumspb.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED: true,
	enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:                   true,
	enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:                  true,
	enumspb.EVENT_TYPE_NEXUS_OPERATION_SCHEDULED:                            true,
	enumspb.EVENT_TYPE_NEXUS_OPERATION_CANCEL_REQUESTED:                     true,
	enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:                         true,
	enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:                            true,
	enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:                          true,
	enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:                  true,
}

func setsIdle(a *historypb.UpsertWorkflowSearchAttributesEventAttributes) bool {
	p := a.GetSearchAttributes().GetIndexedFields()[signals.AttrStatus]
	var status string
	return p != nil && converter.GetDefaultDataConverter().FromPayload(p, &status) == nil &&
		status == string(eventlog.StatusIdle)
}
