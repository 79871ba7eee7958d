package workflows

import (
	"errors"
	"fmt"
	"strconv"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// end is how a run ends: its result or error (a Continue-As-New error too).
type end struct {
	result signals.AgentResult
	err    error
}

// exec executes one command, carrying the journal carry put in it.
// Activities and timers run in coroutines that queue their outcome; hooks
// run here and queue theirs.
func (r *run) exec(ctx workflow.Context, cmd loop.Command) *end {
	switch c := cmd.(type) {
	case loop.Interrupt:
		r.turn.interrupt()
	case loop.RunHooks:
		r.syncAttrs(ctx)
		r.push(r.runHooks(r.turn.ctx(ctx), c))
	case loop.ChooseModel:
		r.push(r.chooseModel(r.turn.ctx(ctx), c))
	case loop.DecidePreStep:
		r.push(r.preStep(r.turn.ctx(ctx), c))
	case loop.ShapeRequest:
		r.push(r.shapeRequest(r.turn.ctx(ctx), c))
	case loop.Recover:
		workflow.SetCurrentDetails(ctx, r.details("recovering from "+string(c.Failure.Kind)))
		r.push(r.recover(r.turn.ctx(ctx), c))
	case loop.CallModel:
		r.syncAttrs(ctx)
		workflow.SetCurrentDetails(ctx, r.details(c.Summary))
		r.callModel(ctx, c)
	case loop.Summarize:
		workflow.SetCurrentDetails(ctx, r.details(c.Summary))
		r.summarize(ctx, c)
	case loop.StartTimer:
		if _, ok := signals.ParseScheduleTimer(c.ID); ok {
			r.startTimer(r.root, r.root, c) // a scheduled message's timer outlives turns
			break
		}
		workflow.SetCurrentDetails(ctx, r.details("waiting "+c.After.String()+" to retry"))
		r.startTimer(ctx, r.turn.ctx(ctx), c)
	case loop.ListTools:
		workflow.SetCurrentDetails(ctx, r.details(c.Summary))
		r.listTools(ctx, c)
	case loop.RunToolPre:
		r.push(r.toolPre(r.turn.ctx(ctx), c))
	case loop.StartTool:
		workflow.SetCurrentDetails(ctx, r.details("running tools"))
		r.startTool(ctx, c)
	case loop.RunToolPost:
		r.push(r.toolPost(r.turn.ctx(ctx), c))
	case loop.CancelTimer:
		r.cancelTimer(c)
	case loop.StartChild:
		r.startChild(ctx, c)
	case loop.SignalChild:
		r.signalChild(ctx, c)
	case loop.ReportToParent:
		r.reportToParent(ctx, c)
	case loop.AnswerMaintenance:
		r.answerMaintenance(c)
	case loop.ContinueAsNew:
		return &end{err: r.continueAsNew(ctx, c)}
	case loop.Finish:
		r.syncAttrs(ctx)
		r.syncEnded(ctx)
		for r.inflight > 0 { // the children's dispose and the report to the parent go out first
			r.sel.Select(ctx)
		}
		err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
		return &end{result: c.Result, err: err}
	case loop.Fail:
		r.logger(ctx).Error("Session log transition failed", "error", c.Err)
		return &end{err: c.Err}
	default:
		// A command without a case would be dropped and the run would wait
		// for an outcome that never comes. The panic fails the workflow task
		// instead; the SDK retries the task (the worker's panic policy blocks,
		// never fails, the workflow), so the run goes on once a worker with
		// the case runs it. `make check`'s sum-type check finds it first.
		panic(fmt.Sprintf("workflows: exec has no case for command %T", cmd))
	}
	return nil
}

// outcome queues what f makes of fut for the loop once fut is ready. The
// run's selector waits on it (see next), so an activity's result is taken
// before signals delivered in the same workflow task, as a blocked Get
// would take it.
func (r *run) outcome(_ workflow.Context, fut workflow.Future, f func(workflow.Future) loop.Input) {
	r.sel.AddFuture(fut, func(fut workflow.Future) {
		if in := f(fut); in != nil {
			r.push(in)
		}
	})
}

func (r *run) callModel(ctx workflow.Context, c loop.CallModel) {
	actx := workflow.WithActivityOptions(r.turn.ctx(ctx), r.cfg.modelOptions(c.ActivityID, modelSummary(c)))
	fut := workflow.ExecuteActivity(actx, signals.ModelActivity, c.Input)
	r.outcome(ctx, fut, func(f workflow.Future) loop.Input {
		var out signals.ModelOutput
		err := f.Get(ctx, &out)
		if err == nil {
			r.resolveModel(ctx, c.Call, out)
			return loop.ModelDone{Output: out}
		}
		fail, timing := failureOf(err)
		return loop.ModelDone{Failure: &fail, Stream: timing}
	})
}

func (r *run) summarize(ctx workflow.Context, c loop.Summarize) {
	actx := workflow.WithActivityOptions(r.turn.ctx(ctx), r.cfg.summaryOptions(c.ActivityID, c.Summary))
	in := c.Input
	if s := in.Call.Summarize; s != nil {
		budget := *s
		budget.Attempts = r.cfg.ToolAttempts
		in.Call.Summarize = &budget
	}
	fut := workflow.ExecuteActivity(actx, signals.ModelActivity, in)
	r.outcome(ctx, fut, func(f workflow.Future) loop.Input {
		var out signals.ModelOutput
		err := f.Get(ctx, &out)
		return loop.Summarized{Text: out.Text, Err: err}
	})
}

// startTimer starts a durable timer under parent (the turn's context, or
// the run's for a timer that outlives turns), with a cancel of its own so
// CancelTimer can stop just this one.
func (r *run) startTimer(ctx, parent workflow.Context, c loop.StartTimer) {
	tctx, cancel := workflow.WithCancel(parent)
	if r.timers == nil {
		r.timers = map[string]workflow.CancelFunc{}
	}
	r.timers[c.ID] = cancel
	fut := workflow.NewTimer(tctx, c.After)
	r.outcome(ctx, fut, func(f workflow.Future) loop.Input {
		delete(r.timers, c.ID)
		return loop.TimerFired{ID: c.ID, Canceled: f.Get(ctx, nil) != nil}
	})
}

func (r *run) cancelTimer(c loop.CancelTimer) {
	if cancel, ok := r.timers[c.ID]; ok {
		cancel()
	}
}

func (r *run) listTools(ctx workflow.Context, c loop.ListTools) {
	actx := workflow.WithActivityOptions(r.turn.ctx(ctx), r.cfg.listOptions(c.ActivityID, c.Summary))
	fut := workflow.ExecuteActivity(actx, signals.ListToolsActivity, c.Input)
	r.outcome(ctx, fut, func(f workflow.Future) loop.Input {
		var out eventlog.ToolsListed
		err := f.Get(ctx, &out)
		if err != nil {
			r.logger(ctx).Warn("Listing MCP tools failed", "servers", c.Input.Servers, "error", err)
			return loop.ToolsListed{Err: errors.New(cause(err))}
		}
		return loop.ToolsListed{Listing: out}
	})
}

func (r *run) startTool(ctx workflow.Context, c loop.StartTool) {
	var fut workflow.Future
	ref := eventlog.ActivityRef(c.ActivityID)
	in := c.Input
	in.Attempts = r.cfg.ToolAttempts
	if c.Local {
		lctx := workflow.WithLocalActivityOptions(r.turn.ctx(ctx), r.cfg.localToolOptions(c.Summary))
		fut, ref = workflow.ExecuteLocalActivity(lctx, signals.ToolActivity, in), eventlog.LocalRef(c.Input.CallID)
	} else {
		actx := workflow.WithActivityOptions(r.turn.ctx(ctx), r.cfg.toolOptions(c.ActivityID, c.Summary))
		fut = workflow.ExecuteActivity(actx, signals.ToolActivity, in)
	}
	r.outcome(ctx, fut, func(f workflow.Future) loop.Input {
		var out signals.ToolOutput
		err := f.Get(ctx, &out)
		switch {
		case err == nil:
			return loop.ToolDone{CallID: c.Call.ID, Output: out, Ref: ref}
		case temporal.IsCanceledError(err):
			return loop.ToolDone{CallID: c.Call.ID, Canceled: true}
		}
		r.logger(ctx).Warn("Tool activity failed", "call_id", c.Call.ID, "tool", c.Call.Name, "error", err)
		return loop.ToolDone{CallID: c.Call.ID, Failed: r.toolFailure(err, c.Local)}
	})
}

// failureOf normalises a model activity error. The activity reports provider
// failures as ApplicationErrors whose Type is the failure kind and whose
// details hold the eventlog.Failure, then the call's timing.
func failureOf(err error) (eventlog.Failure, *eventlog.StreamTiming) {
	var app *temporal.ApplicationError
	var timeout *temporal.TimeoutError
	switch {
	case temporal.IsCanceledError(err):
		return eventlog.Failure{Kind: eventlog.FailureCanceled, Message: "canceled"}, nil
	case errors.As(err, &app):
		var f eventlog.Failure
		var timing eventlog.StreamTiming
		if app.HasDetails() && app.Details(&f, &timing) == nil && f.Kind != "" {
			return f, timingOrNil(timing)
		}
		if app.HasDetails() && app.Details(&f) == nil && f.Kind != "" {
			return f, nil
		}
		return eventlog.Failure{Kind: kindOf(app.Type()), Message: app.Message()}, nil
	case errors.As(err, &timeout):
		return eventlog.Failure{Kind: eventlog.FailureTimeout, Message: timeout.Error()}, nil
	default:
		return eventlog.Failure{Kind: eventlog.FailureUnknown, Message: err.Error()}, nil
	}
}

func timingOrNil(t eventlog.StreamTiming) *eventlog.StreamTiming {
	if t == (eventlog.StreamTiming{}) {
		return nil
	}
	return &t
}

func kindOf(t string) eventlog.FailureKind {
	for _, k := range eventlog.FailureKinds {
		if string(k) == t {
			return k
		}
	}
	return eventlog.FailureUnknown
}

// toolFailure is what the model is told of a tool call that failed for
// good. Usually the activity decided (signals.ToolFailure: the tool's own
// error, after its attempts); otherwise the call ran out of time as a
// whole, which for a regular activity means faults kept ending its attempts
// (each fault is retried, and only the overall deadline stops them).
func (r *run) toolFailure(err error, local bool) string {
	var timeout *temporal.TimeoutError
	var app *temporal.ApplicationError
	switch {
	case errors.As(err, &timeout) && local:
		return "did not finish within " + DefaultLocalToolTimeout.String()
	case errors.As(err, &timeout):
		return "did not complete within " + r.cfg.ToolDeadline.String() +
			": its attempts kept being interrupted by worker or server failures"
	case errors.As(err, &app):
		return app.Message()
	}
	return err.Error()
}

// cause strips Temporal's wrapper so a reader sees the underlying error.
func cause(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		return "timed out"
	}
	return err.Error()
}

// turnScope is the cancelable context the open turn's work runs under.
// Interrupt cancels it; the next command gets a fresh one.
type turnScope struct {
	c      workflow.Context
	cancel workflow.CancelFunc
}

func (t *turnScope) ctx(parent workflow.Context) workflow.Context {
	if t.c == nil {
		t.c, t.cancel = workflow.WithCancel(parent)
	}
	return t.c
}

func (t *turnScope) interrupt() {
	if t.cancel != nil {
		t.cancel()
	}
	t.c, t.cancel = nil, nil
}

func itoa(i int) string { return strconv.Itoa(i) }
