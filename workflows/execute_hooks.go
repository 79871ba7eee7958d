package workflows

import (
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

// hookCtx is a cancelable context for one hook point: cancel reaches a hook
// waiting on a timer or an activity.
func (r *run) hookCtx(ctx workflow.Context) (workflow.Context, func()) {
	cctx, cancel := workflow.WithCancel(ctx)
	r.cancel = cancel
	return cctx, func() { r.release(cancel) }
}

func (r *run) runHooks(ctx workflow.Context, cmd RunHooks) {
	cctx, done := r.hookCtx(ctx)
	defer done()
	a := view{r: r, ctx: cctx}
	var out []string
	err := r.hooks.check()
	if err == nil {
		out, err = serial(r.hooks.hooks, string(cmd.Point), func(h hook.Hook) bool { return serialHook(h, cmd.Point) != nil },
			func(h hook.Hook) (string, error) { return serialHook(h, cmd.Point)(cctx, a) })
	}
	r.core.HooksDone(workflow.Now(ctx), cmd.Point, strings.Join(out, "\n\n"), err)
}

// serialHook adapts a hook's serial point to one signature.
func serialHook(h hook.Hook, p Point) func(workflow.Context, hook.Agent) (string, error) {
	switch {
	case p == PointStepBoundary && h.StepBoundary != nil:
		return func(ctx workflow.Context, a hook.Agent) (string, error) { return "", h.StepBoundary(ctx, a) }
	case p == PointTurnStopping && h.TurnStopping != nil:
		return func(ctx workflow.Context, a hook.Agent) (string, error) { return "", h.TurnStopping(ctx, a) }
	case p == PointRuntimeContext && h.RuntimeContext != nil:
		return h.RuntimeContext
	}
	return nil
}

func (r *run) chooseModel(ctx workflow.Context, cmd ChooseModel) {
	cctx, done := r.hookCtx(ctx)
	defer done()
	a := view{r: r, ctx: cctx}
	s, err := waterfall(r.hooks.hooks, "model", func(h hook.Hook) bool { return h.Model != nil },
		func(h hook.Hook, next func() (signals.Selection, error)) (signals.Selection, error) {
			return h.Model(cctx, a, next)
		},
		func() (signals.Selection, error) { return cmd.Default, nil })
	r.core.ModelChosen(workflow.Now(ctx), s, err)
}

func (r *run) preStep(ctx workflow.Context, cmd DecidePreStep) {
	cctx, done := r.hookCtx(ctx)
	defer done()
	a := view{r: r, ctx: cctx}
	d, err := waterfall(r.hooks.hooks, "pre-step", func(h hook.Hook) bool { return h.PreStep != nil },
		func(h hook.Hook, next func() (hook.Decision, error)) (hook.Decision, error) {
			return h.PreStep(cctx, a, cmd.Batch, next)
		},
		func() (hook.Decision, error) { return hook.Enter(cmd.Batch), nil })
	r.core.PreStepDone(workflow.Now(ctx), d, err)
}

func (r *run) shapeRequest(ctx workflow.Context, cmd ShapeRequest) {
	cctx, done := r.hookCtx(ctx)
	defer done()
	a := view{r: r, ctx: cctx}
	cfg, err := waterfall(r.hooks.hooks, "request", func(h hook.Hook) bool { return h.Request != nil },
		func(h hook.Hook, next func() (signals.CallConfig, error)) (signals.CallConfig, error) {
			return h.Request(cctx, a, next)
		},
		func() (signals.CallConfig, error) { return cmd.Default, nil })
	r.core.RequestShaped(workflow.Now(ctx), cfg, err)
}

func (r *run) recover(ctx workflow.Context, cmd Recover) {
	cctx, done := r.hookCtx(ctx)
	defer done()
	a := view{r: r, ctx: cctx}
	act, err := waterfall(r.hooks.hooks, "request-error", func(h hook.Hook) bool { return h.RequestError != nil },
		func(h hook.Hook, next func() (hook.Action, error)) (hook.Action, error) {
			return h.RequestError(cctx, a, cmd.Failure, next)
		},
		func() (hook.Action, error) { return hook.Action{}, nil }) // unhandled: terminal
	r.core.Recovered(workflow.Now(ctx), act, err)
}
