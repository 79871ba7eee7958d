package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/signals"
)

// maintenance tracks the maintain updates waiting for their task.
type maintenance struct {
	seq  int                         // tasks queued so far
	done map[int]*signals.Maintained // finished task results by number
	errs map[int]error
	ran  int // tasks run so far
}

// maintainUpdate registers the maintain update: its handler queues the task
// and answers once the loop has run it in a true idle phase.
func (r *run) maintainUpdate(ctx workflow.Context) error {
	r.maint = maintenance{done: map[int]*signals.Maintained{}, errs: map[int]error{}}
	return workflow.SetUpdateHandlerWithOptions(ctx, signals.MaintainUpdate.Name,
		func(ctx workflow.Context, m signals.Maintain) (signals.Maintained, error) {
			r.maint.seq++
			n := r.maint.seq
			r.core.Maintain(m.Task)
			if err := workflow.Await(ctx, func() bool { return r.maint.ran >= n || r.core.Disposed() }); err != nil {
				return signals.Maintained{}, err
			}
			if r.maint.ran < n {
				return signals.Maintained{}, reject(signals.ErrDisposed)
			}
			out, err := r.maint.done[n], r.maint.errs[n]
			delete(r.maint.done, n)
			delete(r.maint.errs, n)
			if out == nil {
				return signals.Maintained{}, err
			}
			return *out, err
		},
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, m signals.Maintain) error {
			switch {
			case r.core.Disposed():
				return reject(signals.ErrDisposed)
			case m.Task != signals.TaskCompact:
				return reject(fmt.Errorf("%w: unknown maintenance task %q", errUnknownTask, m.Task))
			}
			return nil
		}},
	)
}

var errUnknownTask = errors.New("unknown task")

// runMaintenance runs the loop's due maintenance task.
func (r *run) runMaintenance(ctx workflow.Context, cmd RunMaintenance) {
	workflow.SetCurrentDetails(ctx, r.details("maintenance: "+string(cmd.Task)))
	out := &signals.Maintained{Task: cmd.Task, Before: r.core.ContextTokens()}
	_, err := r.compact(ctx, true)
	out.After = r.core.ContextTokens()
	r.core.Maintained()
	r.maint.ran++
	r.maint.done[r.maint.ran], r.maint.errs[r.maint.ran] = out, err
	if err != nil {
		workflow.GetLogger(ctx).Warn("Maintenance failed", "task", cmd.Task, "error", err)
	}
}
