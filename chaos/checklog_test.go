package chaos

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/workflows"
)

// checkLog: the log is gap-free, decodes, folds, and equals its projection
// from the chain's histories.
func checkLog(r *record, v *violations) {
	for i, env := range r.log {
		if env.Seq != int64(i) {
			v.add("%s: log position %d holds seq %d", r.id, i, env.Seq)
			return
		}
	}
	if _, err := eventlog.DecodeAll(r.log); err != nil {
		v.add("%s: log does not decode: %v", r.id, err)
		return
	}
	st := eventlog.NewState(0)
	for _, e := range r.events {
		if err := st.Apply(e); err != nil {
			v.add("%s: log does not fold: %v", r.id, err)
			break
		}
	}
	projected, err := projection.FromChain(r.histories()...)
	if err != nil {
		v.add("%s: no projection from history: %v", r.id, err)
		return
	}
	if d := diffLogs(r.log, projected); d != "" {
		v.add("%s: log differs from its projection from history: %s", r.id, d)
	}
}

// diffLogs describes the first difference of two logs, or "".
func diffLogs(want, got []eventlog.Envelope) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d events in the log, %d projected", len(want), len(got))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Seq != g.Seq || w.Type != g.Type || !w.At.Equal(g.At) || w.Ref != g.Ref {
			return fmt.Sprintf("seq %d: %s at %s (ref %q) vs %s at %s (ref %q)", w.Seq, w.Type, w.At, w.Ref, g.Type, g.At, g.Ref)
		}
		we, err1 := eventlog.Decode(w)
		ge, err2 := eventlog.Decode(g)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(we, ge) {
			return fmt.Sprintf("seq %d %s: %s vs %s (%v, %v)", w.Seq, w.Type, clip(string(w.Data)), clip(string(g.Data)), err1, err2)
		}
	}
	return ""
}

// checkReplay: every run of the chain replays with the current workflow
// code, without nondeterminism.
func checkReplay(r *record, cfg workflows.Config, v *violations) {
	for _, run := range r.runs {
		rp := worker.NewWorkflowReplayer()
		workflows.Register(rp, cfg)
		err := rp.ReplayWorkflowHistoryWithOptions(nil, &historypb.History{Events: run.events},
			worker.ReplayWorkflowHistoryOptions{OriginalExecution: workflow.Execution{ID: r.id, RunID: run.id}})
		if err != nil {
			v.add("%s: run %s does not replay: %v", r.id, run.id, err)
		}
	}
}

// checkEnds: every run but the last continued as new; the last is open,
// or completed (a disposed child). None failed, was terminated, canceled
// or timed out, and no open run has a workflow task failing again and
// again.
func checkEnds(ctx context.Context, c client.Client, r *record, v *violations) {
	for i, run := range r.runs {
		last := run.events[len(run.events)-1].GetEventType()
		latest := i == len(r.runs)-1
		switch last {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
			if latest {
				v.add("%s: the latest run %s continued as new", r.id, run.id)
			}
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
			if !latest || !strings.Contains(r.id, ".child-") {
				v.add("%s: run %s completed, which only a disposed child does", r.id, run.id)
			}
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
			enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
			v.add("%s: run %s ended %s: %s", r.id, run.id, last, closeReason(run.events[len(run.events)-1]))
		default:
			if !latest {
				v.add("%s: run %s is not the latest but did not close", r.id, run.id)
			}
		}
	}
	desc, err := c.DescribeWorkflowExecution(ctx, r.id, "")
	if err != nil {
		v.add("%s: describe: %v", r.id, err)
		return
	}
	if wt := desc.GetPendingWorkflowTask(); wt != nil && wt.GetAttempt() > 2 {
		v.add("%s: its workflow task is on attempt %d (failing again and again)", r.id, wt.GetAttempt())
	}
}

// closeReason is the failure or termination reason of a close event.
func closeReason(ev *historypb.HistoryEvent) string {
	if a := ev.GetWorkflowExecutionFailedEventAttributes(); a != nil {
		return a.GetFailure().GetMessage()
	}
	if a := ev.GetWorkflowExecutionTerminatedEventAttributes(); a != nil {
		return a.GetReason()
	}
	return ""
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}
