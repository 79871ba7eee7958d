package tools

import (
	"context"
	"strconv"
	"strings"
)

type callKey struct{}

// withCall is ctx carrying the call its tool runs; Execute installs it.
func withCall(ctx context.Context, c Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallOf returns the call whose tool runs with ctx, as Execute hands it to
// the tool: its agent, call ID, name, validated arguments and idempotency
// key. ok is false outside a call that Execute runs.
func CallOf(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}

// TurnStep returns the turn of the agent's life and the model step in it
// that asked for the call, read from its IdempotencyKey
// ("<agent>/<turn>/<step>/<call ID>"). ok is false when the key does not
// have that form for the call's AgentID and CallID.
func (c Call) TurnStep() (turn, step int, ok bool) {
	mid, ok := strings.CutPrefix(c.IdempotencyKey, c.AgentID+"/")
	if !ok || c.AgentID == "" {
		return 0, 0, false
	}
	if mid, ok = strings.CutSuffix(mid, "/"+c.CallID); !ok {
		return 0, 0, false
	}
	t, s, ok := strings.Cut(mid, "/")
	if !ok {
		return 0, 0, false
	}
	turn, err1 := strconv.Atoi(t)
	step, err2 := strconv.Atoi(s)
	if err1 != nil || err2 != nil || turn < 0 || step < 0 {
		return 0, 0, false
	}
	return turn, step, true
}
