package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// chain is the hooks one agent enabled, in the order its options name them.
type chain struct {
	hooks   []hook.Hook
	stream  []string // enabled llm/stream hooks, which run in the model activity
	missing []string // enabled names no registered hook has
}

// enabledHooks resolves an agent's hook names against the worker's hooks;
// nil names enable the worker's defaults.
func enabledHooks(cfg Config, names []string) chain {
	if names == nil {
		names = cfg.DefaultHooks
	}
	var ch chain
	for _, n := range names {
		i := slices.IndexFunc(cfg.Hooks, func(h hook.Hook) bool { return h.Name == n })
		switch {
		case i >= 0:
			ch.hooks = append(ch.hooks, cfg.Hooks[i])
		case slices.Contains(cfg.StreamHooks, n):
			ch.stream = append(ch.stream, n)
		default:
			ch.missing = append(ch.missing, n)
		}
	}
	return ch
}

// check fails a hook point when the agent enabled a hook this worker lacks.
func (ch chain) check() error {
	if len(ch.missing) > 0 {
		return fmt.Errorf("hooks %v are not registered on this worker", ch.missing)
	}
	return nil
}

// guard runs one hook, turning a panic into an error that names the hook.
func guard[T any](h hook.Hook, p string, f func() (T, error)) (out T, err error) {
	defer func() {
		if rec := recover(); rec != nil {
			err = fmt.Errorf("hook %s panicked at %s: %v", h.Name, p, rec)
		}
	}()
	out, err = f()
	if err != nil {
		err = fmt.Errorf("hook %s failed at %s: %w", h.Name, p, err)
	}
	return out, err
}

// waterfall runs hs in order; each gets next, which runs the rest and then
// final. A hook that does not call next short-circuits everything after it.
func waterfall[T any](hs []hook.Hook, p string, has func(hook.Hook) bool,
	call func(h hook.Hook, next func() (T, error)) (T, error), final func() (T, error)) (T, error) {
	var at func(i int) (T, error)
	at = func(i int) (T, error) {
		for i < len(hs) && !has(hs[i]) {
			i++
		}
		if i == len(hs) {
			return final()
		}
		h := hs[i]
		return guard(h, p, func() (T, error) { return call(h, func() (T, error) { return at(i + 1) }) })
	}
	return at(0)
}

// serial runs every hook of a point in order; the first error stops it.
func serial(hs []hook.Hook, p string, has func(hook.Hook) bool, call func(hook.Hook) (string, error)) ([]string, error) {
	var out []string
	for _, h := range hs {
		if !has(h) {
			continue
		}
		s, err := guard(h, p, func() (string, error) { return call(h) })
		if err != nil {
			return out, err
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// The hook commands. Each runs its chain under the turn's context and
// returns the outcome for the loop.

func (r *run) runHooks(ctx workflow.Context, c loop.RunHooks) loop.Input {
	if c.Point == loop.PointSessionStart {
		return r.sessionStart()
	}
	a := view{r: r, ctx: ctx}
	var out []string
	err := r.hooks.check()
	if err == nil {
		out, err = serial(r.hooks.hooks, string(c.Point), func(h hook.Hook) bool { return serialHook(h, c.Point) != nil },
			func(h hook.Hook) (string, error) { return serialHook(h, c.Point)(ctx, a) })
	}
	return loop.HooksRan{Point: c.Point, Text: strings.Join(out, "\n\n"), Err: err}
}

// serialHook adapts a hook's serial point to one signature.
func serialHook(h hook.Hook, p loop.Point) func(workflow.Context, hook.Agent) (string, error) {
	switch {
	case p == loop.PointStepBoundary && h.StepBoundary != nil:
		return func(ctx workflow.Context, a hook.Agent) (string, error) { return "", h.StepBoundary(ctx, a) }
	case p == loop.PointTurnStopping && h.TurnStopping != nil:
		return func(ctx workflow.Context, a hook.Agent) (string, error) { return "", h.TurnStopping(ctx, a) }
	case p == loop.PointRuntimeContext && h.RuntimeContext != nil:
		return h.RuntimeContext
	}
	return nil
}

func (r *run) chooseModel(ctx workflow.Context, c loop.ChooseModel) loop.Input {
	a := view{r: r, ctx: ctx}
	s, err := waterfall(r.hooks.hooks, "model", func(h hook.Hook) bool { return h.Model != nil },
		func(h hook.Hook, next func() (signals.Selection, error)) (signals.Selection, error) {
			return h.Model(ctx, a, next)
		},
		func() (signals.Selection, error) { return c.Default, nil })
	return loop.ModelChosen{Selection: s, Err: err}
}

func (r *run) preStep(ctx workflow.Context, c loop.DecidePreStep) loop.Input {
	a := view{r: r, ctx: ctx}
	d, err := waterfall(r.hooks.hooks, "pre-step", func(h hook.Hook) bool { return h.PreStep != nil },
		func(h hook.Hook, next func() (hook.Decision, error)) (hook.Decision, error) {
			return h.PreStep(ctx, a, c.Batch, next)
		},
		func() (hook.Decision, error) { return hook.Enter(c.Batch), nil })
	return loop.PreStepDecided{Decision: d, Err: err}
}

func (r *run) shapeRequest(ctx workflow.Context, c loop.ShapeRequest) loop.Input {
	a := view{r: r, ctx: ctx}
	cfg, err := waterfall(r.hooks.hooks, "request", func(h hook.Hook) bool { return h.Request != nil },
		func(h hook.Hook, next func() (signals.CallConfig, error)) (signals.CallConfig, error) {
			return h.Request(ctx, a, next)
		},
		func() (signals.CallConfig, error) { return c.Default, nil })
	return loop.RequestShaped{Config: cfg, Err: err}
}

func (r *run) recover(ctx workflow.Context, c loop.Recover) loop.Input {
	a := view{r: r, ctx: ctx}
	act, err := waterfall(r.hooks.hooks, "request-error", func(h hook.Hook) bool { return h.RequestError != nil },
		func(h hook.Hook, next func() (hook.Action, error)) (hook.Action, error) {
			return h.RequestError(ctx, a, c.Failure, next)
		},
		func() (hook.Action, error) { return hook.Action{}, nil }) // unhandled: terminal
	return loop.Recovered{Action: act, Err: err}
}

// toolPre runs the pre hooks of one call in order. A hook that denies the
// call gives it an error result; other errors fail the turn.
func (r *run) toolPre(ctx workflow.Context, c loop.RunToolPre) loop.Input {
	a := view{r: r, ctx: ctx}
	_, err := serial(r.hooks.hooks, "tool-pre", func(h hook.Hook) bool { return h.ToolPre != nil },
		func(h hook.Hook) (string, error) { return "", h.ToolPre(ctx, a, c.Call) })
	var denied *hook.Denied
	if errors.As(err, &denied) {
		return loop.ToolPreRan{CallID: c.Call.ID, Denied: denied.Reason}
	}
	return loop.ToolPreRan{CallID: c.Call.ID, Err: err}
}

// toolPost runs the post hooks of one call in order, each on the previous
// one's result.
func (r *run) toolPost(ctx workflow.Context, c loop.RunToolPost) loop.Input {
	a := view{r: r, ctx: ctx}
	out := c.Result
	for _, h := range r.hooks.hooks {
		if h.ToolPost == nil {
			continue
		}
		next, err := guard(h, "tool-post", func() (signals.ToolOutput, error) { return h.ToolPost(ctx, a, c.Call, out) })
		if err != nil {
			return loop.ToolPostRan{CallID: c.Call.ID, Err: err}
		}
		out = next
	}
	return loop.ToolPostRan{CallID: c.Call.ID, Output: out}
}

// view is what hooks see of their agent: the run's loop, scoped to one
// hook call's context. Its requests step the loop like a client's.
type view struct {
	r   *run
	ctx workflow.Context
}

func (v view) ID() string                         { return v.r.loop.ID() }
func (v view) Options() signals.AgentOptions      { return v.r.loop.Options() }
func (v view) State() eventlog.State              { return v.r.loop.State() }
func (v view) Step() hook.Step                    { return v.r.loop.Proposed() }
func (v view) RetryChain() int                    { return v.r.loop.State().RetryChain }
func (v view) ContextTokens() int                 { return v.r.loop.ContextTokens() }
func (v view) Config(name string) json.RawMessage { return v.r.opts.HookConfig[name] }

func (v view) Steer(content string) error {
	return v.r.request(v.ctx, loop.Make{Content: content, List: eventlog.NextStep, Wake: true}).Err
}

func (v view) Inject(content string) error {
	return v.r.request(v.ctx, loop.Make{Content: content, List: eventlog.NextStep}).Err
}

func (v view) SelectModel(s signals.Selection) { v.r.request(v.ctx, loop.SelectModel{Selection: s}) }

func (v view) Cancel(cause string, keepInbox bool) {
	v.r.request(v.ctx, loop.Cancel{Cause: cause, KeepInbox: keepInbox})
}

func (v view) Spawn(args signals.SpawnArgs) (string, error) {
	id := eventlog.MessageID("hook-spawn-" + itoa(int(v.r.loop.State().Len)))
	rd := v.r.stepLoop(v.ctx, loop.SpawnChild{Spawn: signals.Spawn{SpawnArgs: args, ID: id}})
	v.r.carry(v.ctx, rd)
	for _, env := range rd.Recorded {
		if env.Type == eventlog.TypeChildStarted {
			e, err := eventlog.Decode(env)
			if err == nil {
				return e.(eventlog.ChildStarted).ChildID, rd.Err
			}
		}
	}
	return "", rd.Err
}
