package projection

import (
	"encoding/json"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// The SDK's marker names for workflow.SideEffect and local activities.
const (
	sideEffectMarker    = "SideEffect"
	localActivityMarker = "LocalActivity"
)

// read indexes one history event.
func (s *sources) read(ev *historypb.HistoryEvent) error {
	switch ev.GetEventType() {
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
		return s.started(ev.GetWorkflowExecutionStartedEventAttributes().GetInput())
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
		a := ev.GetWorkflowExecutionSignaledEventAttributes()
		return s.delivered(a.GetSignalName(), a.GetInput(), false)
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
		in := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes().GetAcceptedRequest().GetInput()
		return s.delivered(in.GetName(), in.GetArgs(), true)
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
		return s.activity(ev.GetEventId(), ev.GetActivityTaskScheduledEventAttributes())
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
		a := ev.GetActivityTaskCompletedEventAttributes()
		return s.completed(a.GetScheduledEventId(), a.GetResult())
	case enumspb.EVENT_TYPE_MARKER_RECORDED:
		return s.marker(ev.GetMarkerRecordedEventAttributes())
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
		var next signals.AgentInput
		if err := s.decode(ev.GetWorkflowExecutionContinuedAsNewEventAttributes().GetInput(), &next); err != nil {
			return err
		}
		if next.Seed != nil { // the run's tail rides in the next run's input
			return s.append(next.Seed.Journal)
		}
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
		var res signals.AgentResult
		if err := s.decode(ev.GetWorkflowExecutionCompletedEventAttributes().GetResult(), &res); err != nil {
			return err
		}
		return s.append(res.Journal)
	}
	return nil
}

// append adds a journal a command carried into history.
func (s *sources) append(j signals.Journal) error {
	if !j.IsZero() {
		if err := s.tailBefore(j); err != nil {
			return err
		}
		s.journaled()
		s.appends++
	}
	s.journal = append(s.journal, j.Envelopes()...)
	return nil
}

func (s *sources) started(in *commonpb.Payloads) error {
	var input signals.AgentInput
	if err := s.decode(in, &input); err != nil {
		return err
	}
	s.system = input.Options.SystemPrompt
	if input.First != nil {
		s.message(*input.First)
	}
	if seed := input.Seed; seed != nil {
		if seed.Fork != nil && s.run == 1 {
			s.fork = seed
		}
		// Pending messages carried from the previous run, with content.
		for _, l := range [][]eventlog.Pending{seed.State.Inbox.NextTurn, seed.State.Inbox.NextStep} {
			for _, p := range l {
				s.message(signals.Message{ID: p.ID, Content: p.Content})
			}
		}
		// Scheduled messages too: their timer delivers them in this run.
		for _, m := range seed.State.Scheduled {
			s.message(signals.Message{ID: m.ID, Content: m.Content})
		}
		// seed.Journal belongs to the previous run: its Continue-As-New
		// event carries it into that run's history.
	}
	return nil
}

// delivered indexes the message a signal or update carried.
func (s *sources) delivered(name string, in *commonpb.Payloads, byUpdate bool) error {
	switch name {
	case signals.FollowupSignal.Name, signals.SteerSignal.Name, signals.InjectSignal.Name:
		var m signals.Message
		if err := s.decode(in, &m); err != nil {
			return nil // a malformed signal was rejected by the workflow too
		}
		s.take(m, byUpdate)
	case signals.SendSignal.Name:
		var m signals.Send
		if err := s.decode(in, &m); err != nil {
			return nil
		}
		s.take(m.Message, byUpdate)
	case signals.ChildReportSignal.Name: // a child's answer, by its report ID
		var r signals.ChildReport
		if err := s.decode(in, &r); err != nil {
			return nil
		}
		s.take(signals.Message{ID: r.ID, Content: r.Text}, byUpdate)
	case signals.ApproveUpdate.Name, signals.DenyUpdate.Name, signals.AnswerUpdate.Name: // a person's reason or answer
		var d signals.Decision
		if err := s.decode(in, &d); err != nil {
			return nil
		}
		s.take(signals.Message{ID: d.ID, Content: d.Text}, byUpdate)
	}
	return nil
}

func (s *sources) activity(eventID int64, a *historypb.ActivityTaskScheduledEventAttributes) error {
	s.scheduled[eventID] = a.GetActivityId()
	var raw json.RawMessage
	if err := s.decode(a.GetInput(), &raw); err != nil {
		return err
	}
	s.inputs[a.GetActivityId()] = raw
	var in struct {
		Journal signals.Journal `json:"journal"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return err
	}
	if err := s.append(in.Journal); err != nil {
		return err
	}
	if _, _, ok := signals.ParseModelActivityID(a.GetActivityId()); ok {
		s.modelInput[a.GetActivityId()] = s.appends
	}
	return nil
}

func (s *sources) completed(scheduledID int64, result *commonpb.Payloads) error {
	id, ok := s.scheduled[scheduledID]
	if !ok {
		return nil
	}
	var raw json.RawMessage
	if err := s.decode(result, &raw); err != nil {
		return err
	}
	s.results[id] = raw
	if _, _, ok := signals.ParseModelActivityID(id); ok {
		s.answered(id, raw)
	}
	return nil
}

func (s *sources) marker(a *historypb.MarkerRecordedEventAttributes) error {
	if a.GetMarkerName() == localActivityMarker {
		return s.localResult(a.GetDetails()["result"])
	}
	if a.GetMarkerName() != sideEffectMarker {
		return nil
	}
	var m struct {
		signals.JournalMarker
		// SignalsFirst is set in the run config of runs whose updates
		// take the signals delivered before them first.
		SignalsFirst bool `json:"signals_first"`
		// BareTail is set in the run config of runs that write nothing
		// for a plain idle tail (task).
		BareTail bool `json:"bare_tail"`
	}
	if err := s.decode(a.GetDetails()["data"], &m); err != nil {
		return err
	}
	s.signalsFirst = s.signalsFirst || m.SignalsFirst
	s.bareTail = s.bareTail || m.BareTail
	return s.append(m.Journal)
}

func (s *sources) decode(p *commonpb.Payloads, v any) error {
	if p == nil || len(p.GetPayloads()) == 0 {
		return nil
	}
	return s.dc.FromPayloads(p, v)
}

// localResult indexes a local tool activity's result by its call ID, in
// history order (a failed attempt records no result).
func (s *sources) localResult(p *commonpb.Payloads) error {
	if p == nil {
		return nil
	}
	var raw json.RawMessage
	if err := s.decode(p, &raw); err != nil {
		return err
	}
	var out struct {
		CallID string `json:"call_id"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.CallID == "" {
		return nil // not a tool result
	}
	s.local[out.CallID] = append(s.local[out.CallID], raw)
	return nil
}
