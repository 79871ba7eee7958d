package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

// chain is the hooks one agent enabled, in the order its options name them.
type chain struct {
	hooks   []hook.Hook
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
		found := false
		for _, h := range cfg.Hooks {
			if h.Name == n {
				ch.hooks, found = append(ch.hooks, h), true
				break
			}
		}
		if !found {
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

// view is what hooks see of their agent: the run's core, scoped to one
// hook call's context.
type view struct {
	r   *run
	ctx workflow.Context
}

func (v view) ID() string                    { return v.r.core.agentID }
func (v view) Options() signals.AgentOptions { return v.r.core.opts }
func (v view) State() eventlog.State         { return v.r.core.State() }
func (v view) Step() hook.Step               { return v.r.core.step }
func (v view) RetryChain() int               { return v.r.core.RetryChain() }

func (v view) Config(name string) json.RawMessage { return v.r.core.opts.HookConfig[name] }

func (v view) Steer(content string) error {
	_, err := v.r.core.Make(workflow.Now(v.ctx), content, eventlog.NextStep, true)
	return err
}

func (v view) Inject(content string) error {
	_, err := v.r.core.Make(workflow.Now(v.ctx), content, eventlog.NextStep, false)
	return err
}

func (v view) SelectModel(s signals.Selection) { v.r.core.SelectModel(s) }

func (v view) ContextTokens() int { return v.r.core.ContextTokens() }

func (v view) Compact(ctx workflow.Context, force bool) (bool, error) { return v.r.compact(ctx, force) }

func (v view) Cancel(cause string, keepInbox bool) {
	v.r.core.Cancel(workflow.Now(v.ctx), cause, keepInbox)
}
