package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Spawn asks the agent to start a detached child agent on args.Task: the
// child's options are the agent's, shaped by args (never more tools than
// the agent's), and each turn it settles arrives in the agent's inbox as a
// message from it (on args.List, next-turn by default). It returns the
// child's ID; Attach to it for its own log. Transient server failures are
// retried under the spawn's ID, which the agent never takes twice; a
// *DeliveryUnknownError says when the deadline ended first.
func (h *Handle) Spawn(ctx context.Context, args signals.SpawnArgs) (string, error) {
	sp := signals.Spawn{SpawnArgs: args, ID: NewMessageID()}
	if err := signals.ValidateSpawnArgs(args, args.Tools); err != nil { // the agent checks the tools
		return "", err
	}
	out, err := deliver(ctx, h, request[signals.Spawn, signals.Spawned]{u: signals.SpawnUpdate, id: string(sp.ID), in: sp})
	if err == nil && out.ChildID == "" {
		return "", fmt.Errorf("spawn agent %s: %w: the spawn %s was delivered, by an attempt whose answer was lost; "+
			"the agent's log names the child (child/started)", h.ID, ErrChildUnknown, sp.ID)
	}
	return out.ChildID, err
}

// Approve lets a tool call that waits for approval run. decider and reason
// are recorded in the agent's log.
func (h *Handle) Approve(ctx context.Context, callID, decider, reason string) (signals.Decided, error) {
	return h.ApproveWith(ctx, callID, decider, reason)
}

// ApproveWith is Approve with options: WithArgs approves the call with
// edited arguments. (Approve keeps its signature, which a variadic
// parameter would change for callers holding it as a func value.)
func (h *Handle) ApproveWith(ctx context.Context, callID, decider, reason string, opts ...ApproveOption) (signals.Decided, error) {
	var d signals.Decision
	for _, o := range opts {
		o(&d)
	}
	return h.decideWith(ctx, signals.ApproveUpdate, d, callID, decider, reason)
}

// ApproveOption shapes an approval.
type ApproveOption func(*signals.Decision)

// WithArgs approves the call with args in place of the model's
// arguments: a JSON object the tool's schema accepts. The call runs with
// them and the model sees its call as made; the log records the decider,
// the original arguments and these. The agent refuses them, and the call
// still waits, when its approval policy forbids edits of the tool
// (ApprovalPolicy.NoEdit), the schema refuses them, or its run predates
// edits: signals.ErrInvalidEdit.
func WithArgs(args json.RawMessage) ApproveOption {
	return func(d *signals.Decision) { d.Args = eventlog.JSON(args) }
}

// Deny refuses a tool call that waits for approval; the model reads the
// reason as the call's error result.
func (h *Handle) Deny(ctx context.Context, callID, decider, reason string) (signals.Decided, error) {
	return h.decide(ctx, signals.DenyUpdate, callID, decider, reason)
}

// Answer answers an ask_human question; the answer is the call's result.
func (h *Handle) Answer(ctx context.Context, callID, decider, answer string) (signals.Decided, error) {
	return h.decide(ctx, signals.AnswerUpdate, callID, decider, answer)
}

// decide sends a decision update. An unknown or already decided call, or a
// disposed agent, is a typed error (signals.ErrNoSuchDecision,
// signals.ErrDisposed). Transient server failures are retried under the
// decision's ID, which the agent never takes twice; a
// *DeliveryUnknownError says when the deadline ended first. A decision
// taken by an attempt whose answer was lost answers Seq -1 (unknown).
func (h *Handle) decide(ctx context.Context, u signals.Update[signals.Decision, signals.Decided], callID, decider, text string) (signals.Decided, error) {
	return h.decideWith(ctx, u, signals.Decision{}, callID, decider, text)
}

func (h *Handle) decideWith(ctx context.Context, u signals.Update[signals.Decision, signals.Decided], d signals.Decision, callID, decider, text string) (signals.Decided, error) {
	d.ID, d.CallID, d.Decider, d.Text = NewMessageID(), callID, decider, text
	if err := signals.ValidateDecision(d); err != nil {
		return signals.Decided{}, err
	}
	out, err := deliver(ctx, h, request[signals.Decision, signals.Decided]{u: u, id: string(d.ID), in: d})
	if err == nil && out.CallID == "" { // taken by an attempt whose answer was lost: its position is unknown
		out = signals.Decided{CallID: callID, Seq: -1}
	}
	return out, err
}
