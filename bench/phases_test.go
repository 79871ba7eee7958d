package bench

import (
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/tetherdev/tether/signals"
)

// phases times the tasks of a history from its events: how long the
// server took to hand each workflow task and activity to the worker
// (scheduled → started) and how long the worker held it (started →
// completed). Where a turn's time goes between the server and the worker.
type phases struct {
	scheduled map[int64]*historypb.HistoryEvent // by event ID, this run
	started   map[int64]*historypb.HistoryEvent
	// The durations, by phase.
	wftDispatch, wftRun, actDispatch, modelRun, toolRun []time.Duration
}

func newPhases() *phases {
	p := &phases{}
	p.endRun()
	return p
}

// endRun forgets the run's event IDs: the next run numbers its own.
func (p *phases) endRun() {
	p.scheduled, p.started = map[int64]*historypb.HistoryEvent{}, map[int64]*historypb.HistoryEvent{}
}

func (p *phases) add(ev *historypb.HistoryEvent) {
	at := ev.GetEventTime().AsTime()
	since := func(id int64) time.Duration { return at.Sub(p.scheduled[id].GetEventTime().AsTime()) }
	switch ev.GetEventType() {
	case enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
		p.scheduled[ev.GetEventId()] = ev
	case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
		if id := ev.GetWorkflowTaskStartedEventAttributes().GetScheduledEventId(); p.scheduled[id] != nil {
			p.started[ev.GetEventId()] = ev
			p.wftDispatch = append(p.wftDispatch, since(id))
		}
	case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
		if st := p.started[ev.GetWorkflowTaskCompletedEventAttributes().GetStartedEventId()]; st != nil {
			p.wftRun = append(p.wftRun, at.Sub(st.GetEventTime().AsTime()))
		}
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
		if id := ev.GetActivityTaskStartedEventAttributes().GetScheduledEventId(); p.scheduled[id] != nil {
			p.started[ev.GetEventId()] = ev
			p.actDispatch = append(p.actDispatch, since(id))
		}
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
		a := ev.GetActivityTaskCompletedEventAttributes()
		st, sch := p.started[a.GetStartedEventId()], p.scheduled[a.GetScheduledEventId()]
		if st == nil || sch == nil {
			return
		}
		run := at.Sub(st.GetEventTime().AsTime())
		switch sch.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() {
		case signals.ModelActivity, floorModel, peerModel:
			p.modelRun = append(p.modelRun, run)
		default:
			p.toolRun = append(p.toolRun, run)
		}
	}
}

// report adds the p50 of each phase to b's metrics, named after subject.
func (p *phases) report(b *testing.B, subject string) {
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{
		{"wft-dispatch", p.wftDispatch}, {"wft-run", p.wftRun}, {"act-dispatch", p.actDispatch},
		{"model-run", p.modelRun}, {"tool-run", p.toolRun},
	} {
		if len(m.d) > 0 {
			b.ReportMetric(pctMs(m.d, 50), subject+"-"+m.name+"-p50-ms")
		}
	}
}
