package projection

import (
	"encoding/json"
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
// model call completed before it, at the task's time; so did one that set
// it and then journaled from where that tail ends (tailBefore).
//
// A run that writes no search attributes writes nothing for that tail
// (its run config says bare_tail): there the task that took a model call's
// answer and journaled nothing ended the turn when the answer asked for no
// tool and nothing was journaled since the call's own input (see
// answered). The loop takes such an answer in one of three ways: the
// plain idle tail, any other end of the turn (journaled in a marker), or
// going on (journaled in the next activity's input).
type task struct {
	open      bool
	at        time.Time // the task's started event time: workflow.Now in it
	model     string    // the model activity completed before the task
	idle      bool      // it upserted the status search attribute to idle
	bare      bool      // the run writes nothing for a plain idle tail
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
		s.task = task{open: true, at: s.taskAt, model: s.lastModel, bare: s.bareTail}
		if s.bareTail {
			s.task.model = s.bareModel
		}
		// The first task after a model call completed took its answer:
		// no later task ends that call's turn. (A later task that set the
		// status idle and journaled nothing, such as a disposed run's
		// last before its reports went out, ended nothing.)
		s.bareModel, s.lastModel = "", ""
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

// plainTail reports whether the task, as read so far, ended the turn of
// the model call before it with the plain idle tail: it set the status to
// idle (or its run writes nothing for the tail) and journaled nothing.
func (t task) plainTail() bool { return t.open && !t.journaled && t.model != "" && (t.idle || t.bare) }

// endTask derives the idle tail of the task that just ended, if it has one.
func (s *sources) endTask() error {
	t := s.task
	s.task = task{}
	if !t.plainTail() {
		return nil
	}
	j, err := signals.IdleTail(s.next(), t.at, t.model)
	if err != nil {
		return err
	}
	s.journal = append(s.journal, j.Envelopes()...)
	return nil
}

// tailBefore derives the idle tail of the open task before j, which a
// command of the same task carries: the turn ended with the plain idle
// tail (the status set to idle, no marker) and something delivered in the
// same task then went on journaling (a message opening the next turn, in a
// marker or the next model call's input). The tail is derived only when it
// fills the gap before j exactly.
func (s *sources) tailBefore(j signals.Journal) error {
	t := s.task
	if !t.plainTail() || j.From <= s.next() {
		return nil
	}
	tail, err := signals.IdleTail(s.next(), t.at, t.model)
	if err != nil || tail.From+int64(len(tail.Entries)) != j.From {
		return err
	}
	s.journal = append(s.journal, tail.Envelopes()...)
	return nil
}

// next is the sequence number the journal read so far continues with.
func (s *sources) next() int64 {
	if n := len(s.journal); n > 0 {
		return s.journal[n-1].Seq + 1
	}
	return 0
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

// answered notes that model activity id completed with result raw: the
// candidate for a bare idle tail (task) when the answer asks for no tool
// and nothing was journaled since the call's own input. A stale answer
// (the turn was canceled meanwhile, journaled in a marker) and one that
// asks for a tool the loop then waits on with no command (an approval)
// are not.
func (s *sources) answered(id string, raw json.RawMessage) {
	s.lastModel = id
	if !s.bareTail {
		return
	}
	at, ok := s.modelInput[id]
	var out signals.ModelOutput
	if !ok || at != s.appends || json.Unmarshal(raw, &out) != nil || len(out.ToolCalls) > 0 {
		return
	}
	s.bareModel = id
}

func setsIdle(a *historypb.UpsertWorkflowSearchAttributesEventAttributes) bool {
	p := a.GetSearchAttributes().GetIndexedFields()[signals.AttrStatus]
	var status string
	return p != nil && converter.GetDefaultDataConverter().FromPayload(p, &status) == nil &&
		status == string(eventlog.StatusIdle)
}
