package workflows

import (
	"errors"
	"strconv"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
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

// toolRun is the shell's view of one step's tool calls.
type toolRun struct {
	cmd     RunTools
	slots   []slot
	outs    []*signals.ToolOutput // ready results, by call
	from    []eventlog.Ref        // the activity result it is ("" when made here)
	denied  []bool
	futures []workflow.Future
	next    int // the next result to commit, in model order
}

// runTools runs the pre hooks in model order, then schedules the calls by
// mode with a rolling pool, and commits results in model order (after their
// post hooks) as they become ready, whatever order they finish in.
func (r *run) runTools(ctx workflow.Context, cmd RunTools) {
	cctx, cancel := workflow.WithCancel(ctx)
	r.cancel = cancel
	defer r.release(cancel)
	n := len(cmd.Calls)
	t := &toolRun{cmd: cmd, slots: make([]slot, n), outs: make([]*signals.ToolOutput, n),
		from: make([]eventlog.Ref, n), denied: make([]bool, n), futures: make([]workflow.Future, n)}
	if err := r.toolPre(cctx, t); err != nil {
		r.core.ToolsFailed(workflow.Now(ctx), err)
		return
	}
	sel := workflow.NewSelector(ctx)
	for t.next < n {
		r.startReady(cctx, t, sel)
		if err := r.commitReady(cctx, t); err != nil {
			r.core.ToolsFailed(workflow.Now(ctx), err)
			return
		}
		if t.next < n && sel.HasPending() || t.next < n && r.running(t) {
			sel.Select(ctx)
		}
	}
}

// toolPre runs the pre hooks of every call in model order before any runs.
// A hook that denies a call gives it an error result; other errors fail.
func (r *run) toolPre(ctx workflow.Context, t *toolRun) error {
	a := view{r: r, ctx: ctx}
	for i, inv := range t.cmd.Calls {
		if inv.Immediate != nil {
			t.slots[i], t.outs[i] = slotDone, inv.Immediate
			continue
		}
		_, err := serial(r.hooks.hooks, "tool-pre", func(h hook.Hook) bool { return h.ToolPre != nil },
			func(h hook.Hook) (string, error) { return "", h.ToolPre(ctx, a, inv.Call) })
		var denied *hook.Denied
		switch {
		case errors.As(err, &denied):
			t.slots[i], t.denied[i] = slotDone, true
			t.outs[i] = &signals.ToolOutput{CallID: inv.Call.ID, Name: inv.Call.Name, IsError: true,
				Content: "tool call denied: " + denied.Reason}
		case err != nil:
			return err
		}
	}
	return nil
}

// startReady starts the calls the scheduler allows; none once canceling.
func (r *run) startReady(ctx workflow.Context, t *toolRun, sel workflow.Selector) {
	if r.core.Canceling() {
		return
	}
	mode := func(i int) signals.ToolMode { return r.core.mode(t.cmd.Calls[i].Call.Name) }
	for _, i := range startable(t.slots, mode, t.cmd.Bound) {
		inv := t.cmd.Calls[i]
		var f workflow.Future
		if inv.Local {
			lctx := workflow.WithLocalActivityOptions(ctx, r.cfg.localToolOptions(inv.Summary))
			f = workflow.ExecuteLocalActivity(lctx, signals.ToolActivity, inv.Input)
		} else {
			actx := workflow.WithActivityOptions(ctx, r.cfg.toolOptions(inv.ActivityID, inv.Summary))
			f = workflow.ExecuteActivity(actx, signals.ToolActivity, inv.Input)
		}
		t.slots[i], t.futures[i] = slotRunning, f
		sel.AddFuture(f, func(workflow.Future) { t.slots[i] = slotDone })
	}
}

func (r *run) running(t *toolRun) bool {
	for _, s := range t.slots {
		if s == slotRunning {
			return true
		}
	}
	return false
}

// commitReady commits results in model order while the next one is ready:
// its post hooks run first. Calls canceled before they started get a
// canceled result.
func (r *run) commitReady(ctx workflow.Context, t *toolRun) error {
	a := view{r: r, ctx: ctx}
	for t.next < len(t.slots) {
		i := t.next
		inv := t.cmd.Calls[i]
		if t.slots[i] != slotDone && !(r.core.Canceling() && t.slots[i] == slotPending) {
			return nil
		}
		out, from := r.outcome(ctx, t, i)
		if !t.denied[i] && inv.Immediate == nil && !r.core.Canceling() {
			var err error
			out, err = toolPost(r.hooks.hooks, ctx, a, inv.Call, out)
			if err != nil {
				return err
			}
			if from != "" && out != t.outcomeRaw(i) {
				from = "" // a post hook changed it: the event is the hook's, inline
			}
		}
		r.core.ToolDone(workflow.Now(ctx), out, from)
		t.next++
	}
	return nil
}

// outcome is call i's result: the activity's, a canceled or failed result,
// or the one decided without running.
func (r *run) outcome(ctx workflow.Context, t *toolRun, i int) (signals.ToolOutput, eventlog.Ref) {
	inv := t.cmd.Calls[i]
	if t.outs[i] != nil {
		return *t.outs[i], ""
	}
	if t.futures[i] == nil { // canceled before it started
		return r.core.CancelResult(inv.Input.CallID), ""
	}
	var out signals.ToolOutput
	err := t.futures[i].Get(ctx, &out)
	switch {
	case err == nil:
		ref := eventlog.ActivityRef(inv.ActivityID)
		if inv.Local {
			ref = eventlog.LocalRef(inv.Input.CallID)
		}
		t.outs[i], t.from[i] = &out, ref
		return out, ref
	case r.core.Canceling() || temporal.IsCanceledError(err):
		return r.core.CancelResult(inv.Input.CallID), ""
	default:
		workflow.GetLogger(ctx).Warn("Tool activity failed", "call_id", inv.Input.CallID, "tool", inv.Input.Name, "error", err)
		return FailedResult(inv.Input, cause(err)), ""
	}
}

// outcomeRaw is the activity's own result for call i.
func (t *toolRun) outcomeRaw(i int) signals.ToolOutput {
	if t.outs[i] == nil {
		return signals.ToolOutput{}
	}
	return *t.outs[i]
}

// toolPost runs the post hooks of one call in order, each on the previous
// one's result.
func toolPost(hs []hook.Hook, ctx workflow.Context, a hook.Agent, call hook.Call, out signals.ToolOutput) (signals.ToolOutput, error) {
	for _, h := range hs {
		if h.ToolPost == nil {
			continue
		}
		next, err := guard(h, "tool-post", func() (signals.ToolOutput, error) { return h.ToolPost(ctx, a, call, out) })
		if err != nil {
			return out, err
		}
		next.CallID, next.Name = call.ID, call.Name
		out = next
	}
	return out, nil
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
