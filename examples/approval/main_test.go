package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/examples/internal/exampletest"
	"github.com/tetherdev/tether/signals"
)

// The worker is killed after the payment is in the ledger and before its
// result is recorded: the call runs again on a new worker under the same
// idempotency key, finds its payment, and returns it; the ledger has one
// payment, and the agent one result, only after a person approved.
func TestPaymentApprovedThenWorkerKilledMidCallIsMadeOnce(t *testing.T) {
	srv := exampletest.NewServer(t)
	bin := exampletest.Build(t)
	ledger := filepath.Join(t.TempDir(), "payments.ledger")
	env := []string{"PAYMENTS_LEDGER=" + ledger, "PAYMENTS_CONFIRM_DELAY=1h"} // the kill lands while it confirms
	args := append(srv.Args(), "--heartbeat-timeout", "2s", "--heartbeat-interval", "500ms")
	first := exampletest.StartEnv(t, bin, env, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h, err := srv.Agents.Create(ctx, agent.CreateOptions{
		Options: signals.AgentOptions{Tools: []string{"send_payment"}, Approval: &signals.ApprovalPolicy{Tools: []string{"send_payment"}}},
		First:   `/tool send_payment {"to":"alice","amount_cents":4200}`,
	})
	require.NoError(t, err)

	call := pendingApproval(t, ctx, h)
	require.Empty(t, payments(t, ledger), "nothing is paid before the approval")
	_, err = h.Approve(ctx, call, "test", "looks right")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(payments(t, ledger)) == 1 }, time.Minute, 20*time.Millisecond, first.Log())
	first.Kill() // confirming for an hour: its result is not recorded

	second := exampletest.StartEnv(t, bin, env, args...)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err, second.Log())
	results := exampletest.Results(t, ctx, h)
	require.Len(t, results, 1)
	require.False(t, results[0].IsError, results[0].Content)
	require.Regexp(t, `^paid 42\.00 EUR to alice \(payment .+/1/1/.+\)$`, results[0].Content)
	require.Len(t, payments(t, ledger), 1, "the retried call did not pay again")
	require.Contains(t, second.Log(), "Payment already in the ledger under this call's key; not paying again",
		"the result is the second worker's run of the call")
}

// pendingApproval waits until h's call waits for approval and returns its ID.
func pendingApproval(t *testing.T, ctx context.Context, h *agent.Handle) string {
	t.Helper()
	var call string
	require.Eventually(t, func() bool {
		st, err := h.Status(ctx)
		if err == nil && len(st.Pending) == 1 {
			call = st.Pending[0].CallID
		}
		return call != ""
	}, time.Minute, 50*time.Millisecond)
	return call
}

// payments are the ledger's lines.
func payments(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Fields(string(b))
}
