package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// The history bound through the client, at the server: raw signals the
// agent refuses (each over MaxMessageBytes) still fill its history while a
// tool call holds the turn, where no run can continue as new. Once the
// run's history would pass signals.MaxRunHistoryBytes an acknowledged send
// is refused busy (retryable, with how long to wait), and it is delivered,
// once, after the turn goes on and the run continues as new. The agent is
// never closed.
func TestAnAcknowledgedSendIsRefusedBusyAtTheHistoryBoundThenDelivered(t *testing.T) {
	g := newGate(t)
	e := newEnv(t)
	e.startWorker(g.tool())
	ctx := ctxT(t, 3*time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "history-bound",
		Options: signals.AgentOptions{Tools: []string{"gate"}}, First: "/tool gate {}"})
	require.NoError(t, err)
	g.waitStarted(t, ctx)

	huge := strings.Repeat("x", 1900<<10) // under the server's 2 MiB blob limit, over MaxMessageBytes
	for i := 0; historySize(ctx, t, e, h.ID) <= signals.MaxRunHistoryBytes; i++ {
		require.Less(t, i, 16, "the history should pass the bound within 16 signals")
		require.NoError(t, e.c.SignalWorkflow(ctx, h.ID, "", signals.InjectSignal.Name,
			signals.Message{ID: eventlog.MessageID(fmt.Sprintf("huge-%d", i)), Content: huge}))
	}

	// While the tool holds the turn the run stays over the bound, so the
	// refusal is definite once an attempt is answered at all: a loaded
	// machine may leave a short send's outcome unknown (an attempt still in
	// flight at its deadline), and then it is asked again.
	for i := 0; ; i++ {
		short, cancel := context.WithTimeout(ctx, 3*time.Second)
		_, err = h.Inject(short, "small", agent.WithMessageID("small"), agent.Acknowledged())
		cancel()
		if !errors.Is(err, agent.ErrDeliveryUnknown) || i == 10 {
			break
		}
		t.Logf("attempt %d: %v", i, err)
	}
	require.ErrorIs(t, err, signals.ErrBusy, "refused busy while the history is over the bound")
	require.ErrorContains(t, err, "limit 16777216")

	done := make(chan error, 1)
	go func() {
		_, err := h.Inject(ctx, "small", agent.WithMessageID("small"), agent.Acknowledged())
		done <- err
	}()
	g.pass <- struct{}{} // the step ends; the run continues as new and takes the send
	require.NoError(t, <-done, "delivered once the run continued as new")
	_, err = h.Followup(ctx, "/say done", agent.Acknowledged())
	require.NoError(t, err)
	waitIdle(ctx, t, h)

	desc, err := e.c.DescribeWorkflowExecution(ctx, h.ID, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.GetWorkflowExecutionInfo().GetStatus())
	runs, err := projection.FetchChain(ctx, e.c, h.ID)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(runs), 2, "the full run continued as new")
	log, err := h.Log(ctx)
	require.NoError(t, err)
	n := 0
	for _, ev := range events(t, log) {
		if in, ok := ev.(eventlog.InboxInserted); ok && in.MessageID == "small" {
			n++
		}
		if in, ok := ev.(eventlog.InboxInserted); ok {
			require.False(t, strings.HasPrefix(string(in.MessageID), "huge-"), "a refused signal never reaches the log")
		}
	}
	require.Equal(t, 1, n, "the busy send is delivered once")
}

// historySize is the current run's history size in bytes as the server
// counts it.
func historySize(ctx context.Context, t *testing.T, e *env, id string) int {
	t.Helper()
	desc, err := e.c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	return int(desc.GetWorkflowExecutionInfo().GetHistorySizeBytes())
}
