package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// orchestrationUpdates registers the updates people and clients use on a
// running agent: approve, deny and answer a waiting call; spawn a child.
// Each validator checks against the loop, so a refused decision never
// reaches history; the handler queues the input and answers with what the
// loop recorded.
func (r *run) orchestrationUpdates(ctx workflow.Context) error {
	for _, u := range []struct {
		name string
		v    loop.Verdict
	}{
		{signals.ApproveUpdate.Name, loop.Approve}, {signals.DenyUpdate.Name, loop.Deny}, {signals.AnswerUpdate.Name, loop.Answer},
	} {
		if err := r.decisionUpdate(ctx, u.name, u.v); err != nil {
			return err
		}
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, signals.SpawnUpdate.Name,
		func(ctx workflow.Context, sp signals.Spawn) (signals.Spawned, error) {
			r.drainSignals()
			rd, err := r.await(ctx, r.queue(loop.SpawnChild{Spawn: sp}))
			if err == nil {
				err = reject(rd.Err)
			}
			for _, env := range rd.Recorded {
				if e, derr := eventlog.Decode(env); derr == nil && env.Type == eventlog.TypeChildStarted {
					return signals.Spawned{ChildID: e.(eventlog.ChildStarted).ChildID}, err
				}
			}
			return signals.Spawned{}, err
		},
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, sp signals.Spawn) error {
			switch {
			case r.loop.State().Disposing:
				return reject(signals.ErrDisposed)
			case signals.ValidateID(sp.ID) != nil:
				return reject(signals.ValidateID(sp.ID))
			}
			return reject(signals.ValidateSpawnArgs(sp.SpawnArgs, r.loop.Options().Tools))
		}},
	)
}

func (r *run) decisionUpdate(ctx workflow.Context, name string, v loop.Verdict) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, name,
		func(ctx workflow.Context, d signals.Decision) (signals.Decided, error) {
			r.drainSignals()
			rd, err := r.await(ctx, r.queue(loop.Decide{Verdict: v, Decision: d}))
			if err == nil {
				err = reject(rd.Err)
			}
			out := signals.Decided{CallID: d.CallID}
			for _, env := range rd.Recorded {
				if env.Type == eventlog.TypeDecisionMade {
					out.Seq = env.Seq
				}
			}
			return out, err
		},
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, d signals.Decision) error {
			if err := r.loop.CheckDecision(v, d); err != nil {
				return reject(err)
			}
			return reject(r.checkEdit(d))
		}},
	)
}

// checkEdit checks an approval's edited arguments against the tool's
// schema, in the validator only: validators never run on replay, so what
// this worker's tools accept decides only whether the edit enters history.
// A refused edit leaves the call waiting.
func (r *run) checkEdit(d signals.Decision) error {
	if d.Args == "" {
		return nil
	}
	c, schema, ok := r.loop.WaitingCall(d.CallID)
	switch {
	case !ok:
		return fmt.Errorf("%w: call %s", signals.ErrNoSuchDecision, d.CallID)
	case r.cfg.Arguments == nil:
		return fmt.Errorf("%w: this worker cannot check arguments against %s's schema", signals.ErrInvalidEdit, c.Name)
	}
	if err := r.cfg.Arguments.CheckArguments(c.Name, schema, json.RawMessage(d.Args)); err != nil {
		return fmt.Errorf("%w: %w", signals.ErrInvalidEdit, err)
	}
	return nil
}
