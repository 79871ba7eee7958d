package workflows

import (
	"context"
	"encoding/json"
	"sync"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// headers keeps the request headers every run records (an Observer, in
// front of next if set), so that the harness's model fake sees a call's
// whole configuration as the model activity does: under
// loop.RulesCallFromHeader the input names none of it, and the activity
// reads it from its run's log (activities.Model).
type headers struct {
	next Observer
	mu   sync.Mutex
	runs map[string][]headerAt // by agent ID and run ID
}

type headerAt struct {
	seq int64
	h   eventlog.RequestHeader
}

func (s *headers) Run(ctx workflow.Context) RunObserver {
	info := workflow.GetInfo(ctx)
	o := &headerRun{s: s, key: info.WorkflowExecution.ID + "/" + info.WorkflowExecution.RunID}
	if s.next != nil {
		o.next = s.next.Run(ctx)
	}
	return o
}

type headerRun struct {
	s    *headers
	key  string
	next RunObserver
}

func (o *headerRun) Recorded(ctx workflow.Context, events []eventlog.Envelope) {
	o.s.mu.Lock()
	for _, env := range events {
		var h eventlog.RequestHeader
		if env.Type != eventlog.TypeRequestHeader || json.Unmarshal(env.Data, &h) != nil {
			continue
		}
		if o.s.runs == nil {
			o.s.runs = map[string][]headerAt{}
		}
		o.s.runs[o.key] = append(o.s.runs[o.key], headerAt{seq: env.Seq, h: h})
	}
	o.s.mu.Unlock()
	if o.next != nil {
		o.next.Recorded(ctx, events)
	}
}

// fill is in as the model activity makes it of a call that names no
// configuration: turn and step from its ID, the rest from the last header
// its run recorded before in.Ref.Upto.
func (s *headers) fill(ctx context.Context, in signals.ModelInput) signals.ModelInput {
	if in.Call.Summarize != nil || in.Call.Named() {
		return in
	}
	info := activity.GetInfo(ctx)
	if in.Call.Turn == 0 {
		in.Call.Turn, in.Call.Step, _ = signals.ParseModelActivityID(info.ActivityID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, at := range s.runs[info.WorkflowExecution.ID+"/"+info.WorkflowExecution.RunID] {
		if at.seq < in.Ref.Upto {
			in.Call = in.Call.FromHeader(at.h)
		}
	}
	return in
}
