package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// A tool call that fails and is retried by Temporal shows in the agent's
// status (Handle.Retrying, starter status): the activity, its attempt, the
// last failure's message, when the next attempt starts.
func TestStatusShowsACallBeingRetriedAndWhy(t *testing.T) {
	e := newEnv(t)
	e.cfg.ToolAttempts = 20
	release := make(chan struct{})
	e.startWorker(tools.Tool{
		Name: "flaky", Description: "Fails until released.",
		Run: func(context.Context, tools.Call) (tools.Result, error) {
			select {
			case <-release:
				return tools.Result{Content: "finally"}, nil
			default:
				return tools.Result{}, errors.New("backend unavailable")
			}
		},
	})
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "retrying", Options: signals.AgentOptions{Tools: []string{"flaky"}}, First: "/tool flaky {}",
	})
	require.NoError(t, err)

	var calls []agent.Retrying
	waitFor(t, 30*time.Second, "the tool's second attempt to be scheduled", func() bool {
		calls, err = h.Retrying(ctx)
		require.NoError(t, err)
		return len(calls) == 1 && calls[0].Attempt >= 2 && !calls[0].NextAttempt.IsZero()
	})
	c := calls[0]
	require.Equal(t, signals.ToolActivity, c.Activity)
	require.Contains(t, c.LastFailure, "backend unavailable")
	require.Equal(t, "scheduled", c.State)

	r := e.starter(ctx, "status", "retrying")
	requireExit(t, r, 0)
	line := lineWith(r.out, "retrying:  ")
	require.Contains(t, line, signals.ToolActivity+" (activity ", r.out)
	require.Contains(t, line, "backend unavailable", r.out)
	require.Regexp(t, `attempt \d+, (next at \S+|started|scheduled); last failure`, line)
	r = e.starter(ctx, "status", "--json", "retrying")
	requireExit(t, r, 0)
	require.Contains(t, r.out, `"retrying": [`)
	require.Contains(t, r.out, `"status": "running"`, "the status view's fields stay where they were")

	close(release)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	calls, err = h.Retrying(ctx)
	require.NoError(t, err)
	require.Empty(t, calls)
}

func lineWith(out, prefix string) string {
	for l := range strings.Lines(out) {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
