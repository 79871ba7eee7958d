package workflows

import (
	"errors"
	"strconv"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// callModel executes one model activity under a cancelable context and
// reports its outcome to the core.
func (r *run) callModel(ctx workflow.Context, cmd CallModel) {
	cctx, cancel := workflow.WithCancel(ctx)
	r.cancel = cancel
	defer r.release(cancel)
	actx := workflow.WithActivityOptions(cctx, r.cfg.modelOptions(cmd.ActivityID, cmd.Summary))
	var out signals.ModelOutput
	err := workflow.ExecuteActivity(actx, signals.ModelActivity, cmd.Input).Get(actx, &out)
	var failure *eventlog.Failure
	if err != nil {
		f := failureOf(err)
		failure = &f
	}
	r.core.ModelDone(workflow.Now(ctx), cmd, out, failure)
}

// runTools starts every call, then commits results in the model's order as
// they become ready, whatever order the activities finish in.
func (r *run) runTools(ctx workflow.Context, cmd RunTools) {
	cctx, cancel := workflow.WithCancel(ctx)
	r.cancel = cancel
	defer r.release(cancel)
	futures := make([]workflow.Future, len(cmd.Calls))
	for i, inv := range cmd.Calls {
		if inv.Immediate == nil {
			actx := workflow.WithActivityOptions(cctx, r.cfg.toolOptions(inv.ActivityID, inv.Summary))
			futures[i] = workflow.ExecuteActivity(actx, signals.ToolActivity, inv.Input)
		}
	}
	for i, inv := range cmd.Calls {
		now := workflow.Now(ctx)
		if inv.Immediate != nil {
			r.core.ToolDone(now, *inv.Immediate, "")
			continue
		}
		var out signals.ToolOutput
		err := futures[i].Get(cctx, &out)
		now = workflow.Now(ctx)
		switch {
		case err == nil:
			r.core.ToolDone(now, out, inv.ActivityID)
		case r.core.Canceling() || temporal.IsCanceledError(err):
			r.core.ToolDone(now, r.core.CancelResult(inv.Input.CallID), "")
		default:
			workflow.GetLogger(ctx).Warn("Tool activity failed", "call_id", inv.Input.CallID, "tool", inv.Input.Name, "error", err)
			r.core.ToolDone(now, FailedResult(inv.Input, cause(err)), "")
		}
	}
}

func (r *run) release(cancel workflow.CancelFunc) {
	cancel()
	r.cancel = nil
}

// failureOf normalises a model activity error. The activity reports provider
// failures as ApplicationErrors whose Type is the failure kind and whose
// details hold the eventlog.Failure.
func failureOf(err error) eventlog.Failure {
	var app *temporal.ApplicationError
	var timeout *temporal.TimeoutError
	switch {
	case temporal.IsCanceledError(err):
		return eventlog.Failure{Kind: eventlog.FailureCanceled, Message: "canceled"}
	case errors.As(err, &app):
		var f eventlog.Failure
		if app.HasDetails() && app.Details(&f) == nil && f.Kind != "" {
			return f
		}
		return eventlog.Failure{Kind: kindOf(app.Type()), Message: app.Message()}
	case errors.As(err, &timeout):
		return eventlog.Failure{Kind: eventlog.FailureTimeout, Message: timeout.Error()}
	default:
		return eventlog.Failure{Kind: eventlog.FailureUnknown, Message: err.Error()}
	}
}

func kindOf(t string) eventlog.FailureKind {
	for _, k := range eventlog.FailureKinds {
		if string(k) == t {
			return k
		}
	}
	return eventlog.FailureUnknown
}

// cause strips Temporal's activity wrapper so the model sees the tool's error.
func cause(err error) error {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return errors.New(app.Message())
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		return errors.New("timed out")
	}
	return err
}

func itoa(i int) string { return strconv.Itoa(i) }
