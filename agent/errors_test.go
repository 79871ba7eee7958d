package agent

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/signals"
)

// A validator's message that wraps its sentinel is said once: the console
// and the CLI printed "no tool call waits for that decision: no tool call
// waits for that decision: call c1 ...".
func TestARejectionSaysItsSentinelsTextOnce(t *testing.T) {
	wrapped := fmt.Errorf("%w: call c1 (already decided, or never asked)", signals.ErrNoSuchDecision)
	for _, c := range []struct {
		name, typ, msg, want string
		sentinel             error
	}{
		{"message wraps the sentinel", signals.RejectDecision, wrapped.Error(),
			"no tool call waits for that decision: call c1 (already decided, or never asked)", signals.ErrNoSuchDecision},
		{"message is the sentinel", signals.RejectDisposed, signals.ErrDisposed.Error(), signals.ErrDisposed.Error(), signals.ErrDisposed},
		{"message names no sentinel", signals.RejectDisposed, "gone", "agent is disposed: gone", signals.ErrDisposed},
		{"unknown type", "x.Other", "nope", "message rejected: nope", ErrRejected},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := fromRejection(fmt.Errorf("update: %w", temporal.NewNonRetryableApplicationError(c.msg, c.typ, nil)))
			require.ErrorIs(t, err, c.sentinel)
			require.Equal(t, c.want, err.Error())
		})
	}
	plain := errors.New("boom")
	require.Same(t, plain, fromRejection(plain), "not a rejection: as it is")
}
