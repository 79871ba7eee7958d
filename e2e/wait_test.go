package e2e

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// queryCounter counts the queries a client sends, by name.
type queryCounter struct {
	interceptor.ClientInterceptorBase
	status atomic.Int64
}

func (q *queryCounter) InterceptClient(next interceptor.ClientOutboundInterceptor) interceptor.ClientOutboundInterceptor {
	return &countingOutbound{ClientOutboundInterceptorBase: interceptor.ClientOutboundInterceptorBase{Next: next}, q: q}
}

type countingOutbound struct {
	interceptor.ClientOutboundInterceptorBase
	q *queryCounter
}

func (c *countingOutbound) QueryWorkflow(ctx context.Context, in *interceptor.ClientQueryWorkflowInput) (converter.EncodedValue, error) {
	if in.QueryType == signals.StatusQuery.Name {
		c.q.status.Add(1)
	}
	return c.Next.QueryWorkflow(ctx, in)
}

// WaitIdle is pushed by the agent's history, not polled: while a turn runs
// through workflow tasks that leave it running, a waiter asks nothing; it
// asks again when a task may have left the agent idle, and nothing of the
// wait is written to the agent's history.
func TestWaitIdleWakesOnHistoryNotPolling(t *testing.T) {
	e := newEnv(t)
	g := newGate(t)
	e.startWorker(g.tool())
	ctx := ctxT(t, 30*time.Second)
	counter := &queryCounter{}
	c := e.ts.NewClientWithOptions(client.Options{Interceptors: []interceptor.ClientInterceptor{counter}})
	h := startGated(t, ctx, e, g, "pushed")
	waiter, err := agent.New(c, signals.TaskQueue).Attach(ctx, h.ID)
	require.NoError(t, err)

	done := make(chan error, 1)
	go func() { _, err := waiter.WaitIdle(ctx); done <- err }()
	require.Eventually(t, func() bool { return counter.status.Load() == 1 }, 10*time.Second, 5*time.Millisecond)
	tasks := completedTasks(t, ctx, e, h.ID)
	const injects = 5
	for i := range injects { // workflow tasks that leave the turn running
		_, err := h.Inject(ctx, fmt.Sprintf("note %d", i), agent.Unacknowledged()) // an update would write to history itself
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			st, err := h.Status(ctx) // another client: not counted
			return err == nil && len(st.NextStep) == i+1
		}, 10*time.Second, 5*time.Millisecond)
	}
	require.GreaterOrEqual(t, completedTasks(t, ctx, e, h.ID), tasks+injects)
	require.EqualValues(t, 1, counter.status.Load(), "the waiter asked nothing while the turn ran")

	g.open(t, ctx)
	require.NoError(t, <-done)
	require.LessOrEqual(t, counter.status.Load(), int64(3), "one question when the agent went idle")
	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	for _, ev := range history {
		require.NotEqual(t, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, ev.GetEventType(), "waiting wrote to history")
	}
}

func completedTasks(t *testing.T, ctx context.Context, e *env, id string) int {
	history, err := projection.Fetch(ctx, e.c, id, "")
	require.NoError(t, err)
	n := 0
	for _, ev := range history {
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED {
			n++
		}
	}
	return n
}
