package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
)

// rawStart starts an agent as a client in another language does: the
// input is plain JSON built from maps, not signals' Go types.
func rawStart(ctx context.Context, t *testing.T, c client.Client, id string, input map[string]any) client.WorkflowRun {
	t.Helper()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: signals.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE}, signals.AgentWorkflow, input)
	require.NoError(t, err)
	return run
}

// Issue 23: a client that writes retry.initial as "2s" starts an agent
// that runs with it: the provider fails once, and the retry turn waits
// on a durable timer of exactly 2 s.
func TestARawClientStartsAnAgentWithADurationWrittenAsAString(t *testing.T) {
	e := newEnv(t)
	e.providers = map[string]activities.Provider{"flaky": &flaky{n: 1, calls: map[string]int{}}}
	e.startWorker()
	ctx := ctxT(t, time.Minute)
	rawStart(ctx, t, e.c, "raw-duration", map[string]any{
		"options": map[string]any{"provider": "flaky", "retry": map[string]any{"initial": "2s", "max": "1h30m"}},
		"first":   map[string]any{"id": "m1", "content": "/say after one retry"},
	})
	h, err := e.agents.Attach(ctx, "raw-duration")
	require.NoError(t, err)
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn, "one failed turn, one retry turn")

	var backoff []time.Duration
	for _, ev := range historyOf(ctx, t, e, h) {
		if a := ev.GetTimerStartedEventAttributes(); a != nil {
			backoff = append(backoff, a.StartToFireTimeout.AsDuration())
		}
	}
	require.Equal(t, []time.Duration{2 * time.Second}, backoff, "the retry turn's backoff is the only timer")
	events := requireProjects(ctx, t, e, h)
	texts := ofType[eventlog.AssistantMessage](events)
	require.Equal(t, "after one retry", texts[len(texts)-1].Text)
}

// A start input with a malformed duration cannot be refused before it
// is recorded (a start has no validator): the worker cannot decode it,
// so the run fails at its first workflow task with an error that names
// the field and the forms accepted. Nothing else runs.
func TestARawStartWithAMalformedDurationFailsNamingTheField(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, time.Minute)
	run := rawStart(ctx, t, e.c, "raw-bad-duration", map[string]any{
		"options": map[string]any{"retry": map[string]any{"initial": "2 parsecs"}},
		"first":   map[string]any{"id": "m1", "content": "/say never"},
	})
	err := run.Get(ctx, nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), `retry.initial: "2 parsecs" is not a duration`)
	require.Contains(t, err.Error(), `a string such as "2s" or "1h30m"`)
	desc, err := e.c.DescribeWorkflowExecution(ctx, "raw-bad-duration", "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, desc.WorkflowExecutionInfo.Status)
}

// Issue 23: a followup signal without a message ID cannot be taken (the
// ID is its dedupe key). The signal cannot answer, so the worker logs the
// refusal the way it logs every refused signalled message, one WARN line
// through the rate-limited log saying the ID is empty, and the agent goes
// on: nothing enters its log, and the next message is taken.
func TestASignalWithoutAMessageIDIsRefusedWithAWarning(t *testing.T) {
	ts := testserver.New(t)
	queue := "q-no-id"
	cfg, err := configfx.Load([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(),
		"--task-queue", queue}, func(string) string { return "" }, nil)
	require.NoError(t, err)
	ctx := ctxT(t, time.Minute)
	logs := &lockedBuffer{}
	app := fx.New(tetherfx.Worker(cfg, logs), fx.NopLogger)
	require.NoError(t, app.Start(ctx))
	t.Cleanup(func() {
		stop, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.NoError(t, app.Stop(stop))
	})
	agents := agent.New(ts.GetDefaultClient(), queue)
	h, err := agents.Create(ctx, agent.CreateOptions{ID: "no-id", First: "/say first"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	c := ts.GetDefaultClient()
	require.NoError(t, c.SignalWorkflow(ctx, "no-id", "", signals.FollowupSignal.Name, map[string]any{"content": "/say lost"}))
	rejected := regexp.MustCompile(`level=WARN msg="Message rejected" .*agent=no-id .*message_id="" .*error="message id is invalid: empty \(every message needs an ID`)
	require.Eventually(t, func() bool { return rejected.MatchString(logs.String()) }, 30*time.Second, 20*time.Millisecond,
		"no rejection line in:\n%s", logs)

	_, err = h.Followup(ctx, "/say second", agent.Acknowledged())
	require.NoError(t, err)
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	for _, env := range log {
		require.NotContains(t, string(env.Data), "lost", "the refused message is nowhere in the log")
	}
	require.Equal(t, 1, strings.Count(logs.String(), `msg="Message rejected"`))
}
