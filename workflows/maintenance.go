package workflows

import (
	"errors"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// maintWaiter is one maintain update waiting for its task.
type maintWaiter struct {
	done bool
	out  signals.Maintained
	err  error
}

// maintainUpdate registers the maintain update: its handler queues the task
// and answers once the loop has run it in a true idle phase.
func (r *run) maintainUpdate(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, signals.MaintainUpdate.Name,
		func(ctx workflow.Context, m signals.Maintain) (signals.Maintained, error) {
			r.drainSignals()
			if rd := r.request(ctx, loop.Maintain{Task: m.Task}); rd.Err != nil {
				return signals.Maintained{}, reject(rd.Err)
			}
			w := &maintWaiter{}
			r.maint = append(r.maint, w)
			if err := workflow.Await(ctx, func() bool { return w.done }); err != nil {
				return signals.Maintained{}, err
			}
			if errors.Is(w.err, signals.ErrDisposed) {
				return w.out, reject(w.err)
			}
			return w.out, w.err
		},
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, m signals.Maintain) error {
			return reject(r.loop.CheckMaintain(m.Task))
		}},
	)
}

// answerMaintenance answers the oldest waiting maintain update.
func (r *run) answerMaintenance(c loop.AnswerMaintenance) {
	if len(r.maint) == 0 {
		return
	}
	w := r.maint[0]
	r.maint = r.maint[1:]
	w.done, w.out, w.err = true, c.Result, c.Err
}
