package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// selectModelUpdate is the acknowledged model switch. Its validator
// refuses a selection the worker cannot run, against the providers the
// run's config recorded (so replay decides the same), and the refusal
// reaches no history; the handler records the switch as the signal does.
func (r *run) selectModelUpdate(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, signals.SelectModelUpdate.Name,
		func(ctx workflow.Context, s signals.Selection) (signals.SelectionAck, error) {
			r.drainSignals()
			rd := r.request(ctx, loop.SelectModel{Selection: s})
			if rd.Err != nil {
				return signals.SelectionAck{}, refuseSelection(rd.Err)
			}
			ack := signals.SelectionAck{Selection: s, Seq: -1} // rules 1 runs log no request
			if len(rd.Recorded) > 0 {
				ack.Seq = rd.Recorded[0].Seq
			}
			return ack, nil
		},
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, s signals.Selection) error {
			return refuseSelection(signals.ValidateSelection(s, r.cfg.Providers))
		}},
	)
}

// refuseSelection types a refused model switch (signals.RejectSelection).
func refuseSelection(err error) error {
	if err == nil {
		return nil
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), signals.RejectSelection, nil)
}

// resolveModel records, once, the provider and model the worker chose for
// an agent that left them to its defaults, as a resolved model/selected
// event: the log, the status, the console and the TetherModel search
// attribute then name what the agent runs on instead of "default", and
// the agent keeps running on it. Only a call made with the agent's own
// selection resolves it (a hook's choice for one step does not), and only
// the parts left blank. It reads nothing but the call's recorded result,
// so replay decides the same.
func (r *run) resolveModel(ctx workflow.Context, call signals.CallConfig, out signals.ModelOutput) {
	sel := r.loop.State().Selection
	if call.Provider != sel.Provider || call.Model != sel.Model {
		return
	}
	resolved := sel
	if resolved.Provider == "" {
		resolved.Provider = out.Provider
	}
	if resolved.Model == "" && resolved.Provider == out.Provider {
		resolved.Model = out.Model // a call recorded before DefaultModel
		if out.DefaultModel != "" {
			resolved.Model = out.DefaultModel // what was asked for, not the snapshot that answered
		}
	}
	if resolved == sel {
		return
	}
	r.request(ctx, loop.SelectModel{Selection: resolved, Resolved: true})
}
