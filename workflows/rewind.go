package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// rewindUpdate registers the rewind update. Its validator asks the loop
// (a turn that has not ended, a turn open, a turn the agent can no longer
// rebuild, a run under rules before loop.RulesRewind), so a refused rewind
// never reaches history; the handler steps the loop with it, which
// decides the same again, and answers what it recorded.
func (r *run) rewindUpdate(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, signals.RewindUpdate.Name,
		func(ctx workflow.Context, in signals.Rewind) (signals.Rewound, error) {
			r.drainSignals()
			m, err := r.loop.CheckRewind(in)
			if err != nil {
				return signals.Rewound{}, reject(err)
			}
			out := signals.Rewound{Turn: m.Turn, Past: r.loop.State().Turn, Keep: m.Keep, Seq: -1}
			rd := r.request(ctx, loop.Rewind{ToTurn: in.ToTurn, By: in.By})
			if rd.Err != nil {
				return signals.Rewound{}, reject(rd.Err)
			}
			if len(rd.Recorded) > 0 {
				out.Seq = rd.Recorded[0].Seq
			}
			return out, nil
		},
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, in signals.Rewind) error {
			_, err := r.loop.CheckRewind(in)
			return reject(err)
		}},
	)
}
