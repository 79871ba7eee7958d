package e2e

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// flaky fails the first n calls of each agent with an overloaded provider,
// then answers like the scripted model.
type flaky struct {
	mu    sync.Mutex
	n     int
	calls map[string]int
}

func (f *flaky) Complete(ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	id := activity.GetInfo(ctx).WorkflowExecution.ID
	f.mu.Lock()
	f.calls[id]++
	c := f.calls[id]
	f.mu.Unlock()
	if c <= f.n {
		return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureOverloaded, 529, 0, "overloaded", nil)
	}
	return scripted.Provider{}.Complete(ctx, req)
}

// A provider that is overloaded twice: the retry policy hook opens two
// retry turns on durable timers, the third turn answers; followers see two
// errors, one settlement and one running interval.
func TestRetryTurnsRecoverFromAnOverloadedProvider(t *testing.T) { inBothModes(t, retryTurnsRecover) }

func retryTurnsRecover(t *testing.T, e *env) {
	e.providers = map[string]activities.Provider{"flaky": &flaky{n: 2, calls: map[string]int{}}}
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)

	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "retrying",
		Options: signals.AgentOptions{Provider: "flaky", Tools: []string{"echo"},
			Retry: &signals.RetryPolicy{Initial: 200 * time.Millisecond}},
		First: `/tool echo {"text":"after retries"}`,
	})
	require.NoError(t, err)
	var notes []agent.Notification
	followed := make(chan error, 1)
	followCtx, stop := context.WithCancel(ctx)
	go func() {
		for n, err := range h.Follow(followCtx, 0) {
			if err != nil {
				followed <- err
				return
			}
			notes = append(notes, n)
			if n.Kind == agent.KindStatus && n.Status == eventlog.StatusIdle {
				followed <- nil
				return
			}
		}
	}()
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	require.NoError(t, <-followed)
	stop()

	log, err := h.Log(ctx)
	require.NoError(t, err)
	evs := events(t, log)
	require.Equal(t, []eventlog.TurnStart{{Turn: 1}, {Turn: 2, RetryOf: 1}, {Turn: 3, RetryOf: 2}}, ofType[eventlog.TurnStart](evs))
	require.Len(t, ofType[eventlog.AssistantAttempt](evs), 2)
	require.Equal(t, "echo: after retries", ofType[eventlog.ToolResult](evs)[0].Content)
	require.Equal(t, eventlog.EndCompleted, ofType[eventlog.TurnEnd](evs)[2].Reason)

	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	projected, err := projection.FromHistory(history)
	require.NoError(t, err)
	requireSameLog(t, log, projected)
	record(t, e.prefix+"retry-turns", history)

	count := map[agent.Kind]int{}
	for _, n := range notes {
		count[n.Kind]++
	}
	require.Equal(t, 2, count[agent.KindError])
	require.Equal(t, 1, count[agent.KindSettled])
	require.Equal(t, 2, count[agent.KindStatus], "running once, idle once")
	for _, n := range notes {
		if n.Kind == agent.KindSettled {
			require.Equal(t, eventlog.Settlement{Turn: 3, Reason: eventlog.EndCompleted, Retries: 2}, *n.Settlement)
		}
	}
}
