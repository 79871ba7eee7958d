package workflows

import (
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// startChild starts a child agent as a child workflow. It runs under the
// run's root context, so a turn's interrupt never cancels it (its turn is
// canceled by signal, gracefully), and it is abandoned, never terminated,
// when this run closes: children outlive their parent's Continue-As-New.
func (r *run) startChild(_ workflow.Context, c loop.StartChild) {
	ctx := r.root
	o := c.Input.Options
	attrs := []temporal.SearchAttributeUpdate{
		StatusKey.ValueSet(string(eventlog.StatusIdle)), TurnKey.ValueSet(0),
		ModelKey.ValueSet(signals.ModelLabel(signals.Selection{Provider: o.Provider, Model: o.Model})),
		ParentKey.ValueSet(o.Parent),
	}
	opts := workflow.ChildWorkflowOptions{
		WorkflowID: c.ChildID, TaskQueue: c.TaskQueue, StaticSummary: c.Summary,
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}
	if !r.cfg.NoSearchAttributes {
		opts.TypedSearchAttributes = temporal.NewSearchAttributes(attrs...)
	}
	fut := workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, opts), signals.AgentWorkflow, c.Input)
	r.inflight++
	r.outcome(ctx, fut.GetChildWorkflowExecution(), func(f workflow.Future) loop.Input {
		r.inflight--
		return loop.ChildStart{ChildID: c.ChildID, Err: f.Get(ctx, nil)}
	})
	r.outcome(ctx, fut, func(f workflow.Future) loop.Input {
		status := "disposed"
		if err := f.Get(ctx, nil); err != nil {
			status = cause(err)
		}
		return loop.ChildClosed{ChildID: c.ChildID, Status: status}
	})
}

// signalChild cancels a child's turn or disposes it. A child that is gone
// has nothing left to stop.
func (r *run) signalChild(ctx workflow.Context, c loop.SignalChild) {
	name, arg := signals.CancelSignal.Name, any(c.Cancel)
	if c.Dispose != nil {
		name, arg = signals.DisposeSignal.Name, c.Dispose
	}
	r.signalExternal(ctx, c.ChildID, name, arg, nil)
}

// reportToParent signals the parent a settled turn or the end. When the
// parent is gone, the loop hears it (ParentGone) and stops after its turn.
func (r *run) reportToParent(ctx workflow.Context, c loop.ReportToParent) {
	r.signalExternal(ctx, r.in.Parent.ID, signals.ChildReportSignal.Name, c.Report, func(err error) loop.Input {
		return loop.ParentGone{Err: err}
	})
}

// signalExternal signals another agent; failed, when set, makes the
// failure an input. The run does not end or continue as new while signals
// are in flight.
func (r *run) signalExternal(_ workflow.Context, id, name string, arg any, failed func(error) loop.Input) {
	ctx := r.root
	r.inflight++
	fut := workflow.SignalExternalWorkflow(ctx, id, "", name, arg)
	r.outcome(ctx, fut, func(f workflow.Future) loop.Input {
		r.inflight--
		if err := f.Get(ctx, nil); err != nil && failed != nil {
			return failed(err)
		}
		return nil
	})
}
