package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// thinking is a model that never answers: it waits for its context, as an
// HTTP request to a slow model does, and reports when it was canceled.
type thinking struct {
	started  chan struct{}
	canceled chan error
}

func (m *thinking) Complete(ctx context.Context, _ llm.Request) (eventlog.AssistantMessage, error) {
	close(m.started)
	<-ctx.Done()
	m.canceled <- ctx.Err()
	return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureCanceled, 0, 0, "canceled", ctx.Err())
}

// Cancel aborts the turn and reaches the model call in flight: the
// provider's request context is canceled (the HTTP request with it), and
// heartbeats kept the silent call alive until then.
func TestCancelReachesTheModelRequestInFlight(t *testing.T) {
	m := &thinking{started: make(chan struct{}), canceled: make(chan error, 1)}
	e := newEnv(t)
	e.providers = map[string]activities.Provider{"thinking": m}
	e.startWorker()
	ctx := ctxT(t, time.Minute)

	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "cancel-model", Options: signals.AgentOptions{Provider: "thinking"}, First: "ponder"})
	require.NoError(t, err)
	select {
	case <-m.started:
	case <-ctx.Done():
		t.Fatal("the model call never started")
	}
	// Longer than the model heartbeat timeout (3s in the harness): a silent
	// model is not timed out while the activity heartbeats.
	time.Sleep(4 * time.Second)
	require.NoError(t, h.Cancel(ctx, "user pressed stop", false))
	select {
	case err := <-m.canceled:
		require.ErrorIs(t, err, context.Canceled)
	case <-ctx.Done():
		t.Fatal("cancel never reached the model request")
	}
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, st.Turn, "one turn: no retry, no timeout re-run")
	log, err := h.Log(ctx)
	require.NoError(t, err)
	evs := events(t, log)
	require.Equal(t, eventlog.EndCanceled, ofType[eventlog.TurnEnd](evs)[0].Reason)
	require.Len(t, ofType[eventlog.AssistantAttempt](evs), 1)
}
