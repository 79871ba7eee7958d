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
		status, res := "disposed", signals.AgentResult{}
		if err := f.Get(ctx, &res); err != nil {
			status = cause(err)
		}
		// The child's reports were delivered before it closed (it waits
		// for its signals); hand them to the loop first.
		r.drainSignals()
		return loop.ChildClosed{ChildID: c.ChildID, Status: status, Spent: res.Usage}
	})
}

// signalChild cancels a child's turn or disposes it. A child that is gone
// has nothing left to stop.
func (r *run) signalChild(ctx workflow.Context, c loop.SignalChild) {
	name, arg := signals.CancelSignal.Name, any(c.Cancel)
	if c.Dispose != nil {
		name, arg = signals.DisposeSignal.Name, c.Dispose
	}
	r.signalExternal(ctx, c.ChildID, name, arg, func(error) loop.Input { return nil })
}

// reportToParent signals the parent a settled turn or the end. When the
// parent is gone, the loop hears it (ParentGone) and stops after its turn.
//
// The reports go one at a time: the next is sent once the parent has the
// one before. Temporal does not deliver two signals of one workflow in the
// order they were sent, and a parent that hears of a child's end before
// the report of its last turn has no turn to settle.
func (r *run) reportToParent(ctx workflow.Context, c loop.ReportToParent) {
	r.reports = append(r.reports, c.Report)
	if len(r.reports) == 1 {
		r.sendReport(ctx, c.Report, r.nextReport)
	}
}

// nextReport sends the report queued after the one the parent now has.
func (r *run) nextReport(ctx workflow.Context) {
	r.reports = r.reports[1:]
	if len(r.reports) > 0 {
		r.sendReport(ctx, r.reports[0], r.nextReport)
	}
}

// sendReport signals rep to the parent; then, when set, runs once the
// signal resolved, either way.
func (r *run) sendReport(ctx workflow.Context, rep signals.ChildReport, then func(workflow.Context)) {
	r.signalExternal(ctx, r.in.Parent.ID, signals.ChildReportSignal.Name, rep, func(err error) loop.Input {
		if then != nil {
			then(ctx)
		}
		if err != nil {
			return loop.ParentGone{Err: err}
		}
		return nil
	})
}

// signalExternal signals another agent; done makes its outcome (nil or the
// failure) an input, or nothing. The run does not end or continue as new
// while signals are in flight.
func (r *run) signalExternal(_ workflow.Context, id, name string, arg any, done func(error) loop.Input) {
	ctx := r.root
	r.inflight++
	fut := workflow.SignalExternalWorkflow(ctx, id, "", name, arg)
	r.outcome(ctx, fut, func(f workflow.Future) loop.Input {
		r.inflight--
		return done(f.Get(ctx, nil))
	})
}
