package workflows

import (
	"errors"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/loop"
)

// sessionStartHooks names the enabled hooks that have a session-start
// point, in chain order (loop.Config.SessionStart).
func (ch chain) sessionStartHooks() []string {
	var out []string
	for _, h := range ch.hooks {
		if h.SessionStart != nil {
			out = append(out, h.Name)
		}
	}
	return out
}

// sessionStart runs every session-start hook under the run's context: a
// notification, so a hook's error or panic is reported with the others'
// and stops nothing, and an enabled hook this worker lacks is reported as
// well. The loop records them all in session/started.
func (r *run) sessionStart() loop.Input {
	ctx := r.root
	a := view{r: r, ctx: ctx}
	s := hook.Start{Parent: r.in.Parent}
	if f := r.in.First; f != nil {
		first := *f
		s.First = &first
	}
	var errs []error
	if err := r.hooks.check(); err != nil {
		errs = append(errs, err)
	}
	for _, h := range r.hooks.hooks {
		if h.SessionStart == nil {
			continue
		}
		_, err := guard(h, string(loop.PointSessionStart), func() (struct{}, error) {
			return struct{}{}, h.SessionStart(ctx, a, s)
		})
		if err != nil {
			workflow.GetLogger(ctx).Warn("session-start hook failed", "hook", h.Name, "error", err)
			errs = append(errs, err)
		}
	}
	return loop.HooksRan{Point: loop.PointSessionStart, Err: errors.Join(errs...)}
}
