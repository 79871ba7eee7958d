package tether_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// recorder is a provider that keeps the user messages of every request it
// gets and answers "noted".
type recorder struct {
	mu       sync.Mutex
	requests [][]string
}

func (r *recorder) Complete(_ context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	var users []string
	for _, m := range req.Messages {
		if m.Role == eventlog.RoleUser {
			users = append(users, m.Content)
		}
	}
	r.mu.Lock()
	r.requests = append(r.requests, users)
	r.mu.Unlock()
	return eventlog.AssistantMessage{Text: "noted", FinishReason: eventlog.FinishStop, Model: "recorder-1"}, nil
}

func (r *recorder) seen() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]string(nil), r.requests...)
}

// sessionHooks are a session-start hook that injects context and one that
// fails, as a program registers them with tether.WithHooks.
func sessionHooks() []hook.Hook {
	return []hook.Hook{
		{Name: "house-rules", SessionStart: func(_ workflow.Context, a hook.Agent, s hook.Start) error {
			return a.Inject("house rules for " + a.ID() + ", started with: " + s.First.Content)
		}},
		{Name: "audit", SessionStart: func(workflow.Context, hook.Agent, hook.Start) error {
			return errors.New("audit store unreachable")
		}},
	}
}

// On a real server, with the program's own hooks: the context a
// session-start hook injects is in the first model request, once; the
// failing hook is recorded and stops nothing; after Continue-As-New (one
// turn a run) the hooks do not run again; and the first run's history
// projects to its log and replays with the same hooks.
func TestSessionStartHooksSeedTheFirstRequestOnceAcrossContinueAsNew(t *testing.T) {
	ts := testserver.New(t)
	model, logs := &recorder{}, &syncBuffer{}
	w, err := tether.NewWorker(
		tether.FromFlags([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(), "--max-run-turns", "1"}),
		env(nil), tether.WithLog(logs), tether.WithHooks(sessionHooks()...),
		tether.WithProvider("recorder", model), tether.WithDefaultProvider("recorder"))
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "Started Worker") }, time.Minute, 50*time.Millisecond)

	wait, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	agents := agent.New(ts.GetDefaultClient(), "")
	h, err := agents.Create(wait, agent.CreateOptions{Options: signals.AgentOptions{Hooks: []string{"house-rules", "audit"}}, First: "hello"})
	require.NoError(t, err)
	_, err = h.WaitIdle(wait)
	require.NoError(t, err)
	_, err = h.Followup(wait, "again")
	require.NoError(t, err)
	st, err := h.WaitIdle(wait)
	require.NoError(t, err)
	require.GreaterOrEqual(t, st.Runs, 2, "the agent continued as new")

	rules := "house rules for " + h.ID + ", started with: hello"
	reqs := model.seen()
	require.Len(t, reqs, 2)
	require.Equal(t, []string{rules, "hello"}, reqs[0], "the first request has the context, then the first message")
	require.Equal(t, 1, strings.Count(strings.Join(reqs[1], "\n"), rules), "the second request has it once, from the seed")

	envs, err := h.Log(wait)
	require.NoError(t, err)
	evs, err := eventlog.DecodeAll(envs)
	require.NoError(t, err)
	var started []eventlog.SessionStarted
	injected := 0
	for _, e := range evs {
		switch e := e.(type) {
		case eventlog.SessionStarted:
			started = append(started, e)
		case eventlog.InboxInserted:
			if e.Content == rules {
				injected++
			}
		}
	}
	require.Equal(t, []eventlog.SessionStarted{{Hooks: []string{"house-rules", "audit"},
		Errors: []string{"hook audit failed at session-start: audit store unreachable"}}}, started, "once per agent, not per run")
	require.Equal(t, 1, injected)

	// The first run replays from its history with the same hooks.
	iter := ts.GetDefaultClient().GetWorkflowHistory(wait, h.ID, h.RunID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	hist := &historypb.History{}
	for iter.HasNext() {
		e, err := iter.Next()
		require.NoError(t, err)
		hist.Events = append(hist.Events, e)
	}
	projected, err := projection.FromHistory(hist.Events)
	require.NoError(t, err)
	require.Equal(t, envs[:len(projected)], projected, "the first run's history projects to the log it held, session/started included")
	replayer := worker.NewWorkflowReplayer()
	workflows.Register(replayer, workflows.Config{Hooks: sessionHooks()})
	require.NoError(t, replayer.ReplayWorkflowHistory(nil, hist))

	stop()
	require.NoError(t, <-ran)
}
