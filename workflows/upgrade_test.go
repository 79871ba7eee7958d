package workflows

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/internal/devserver"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// Two builds on one task queue of the real test server: a run recorded by
// the newer one (rules the older does not follow, or a run config field
// it does not know) fails every workflow task the older one takes, with
// the reason and nothing recorded; the newer one then takes the run, which
// answers its followup once and completes. In both modes of search
// attributes.
func TestAnOlderBuildRefusesANewerRunAndTheNewerTakesIt(t *testing.T) {
	ts := testserver.New(t)
	c := ts.GetDefaultClient()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	_, err := c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: ts.GetDefaultNamespace(), SearchAttributes: devserver.DefaultSearchAttributes()})
	require.NoError(t, err)

	cases := []struct {
		name         string
		older, newer build
		reason       string
	}{
		{"newer rules", build{Latest: loop.Latest - 1}, build{},
			fmt.Sprintf("the run config records rules %d; this build follows %d to %d", loop.Latest, loop.Baseline, loop.Latest-1)},
		{"a run config field the older build does not know", build{}, build{Extra: []extraField{{"future_flag", true}}},
			`json: unknown field "future_flag"`},
	}
	for _, tc := range cases {
		for _, noAttrs := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, no search attributes %v", tc.name, noAttrs), func(t *testing.T) {
				queue := fmt.Sprintf("q-%d-%v", len(tc.reason), noAttrs)
				cfg := Config{NoSearchAttributes: noAttrs}
				newer := startBuild(t, c, queue, cfg, tc.newer)
				id := "agent-" + queue
				run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue},
					signals.AgentWorkflow, signals.AgentInput{Options: signals.AgentOptions{Hooks: []string{}},
						First: &signals.Message{ID: "m0", Content: "hello"}})
				require.NoError(t, err)
				waitAnswers(ctx, t, c, id, 1)
				waitNoTask(ctx, t, c, id)
				newer.Stop()

				older := startBuild(t, c, queue, cfg, tc.older)
				require.NoError(t, c.SignalWorkflow(ctx, id, "", signals.FollowupSignal.Name,
					signals.Message{ID: "m1", Content: "again"}))
				failed := waitTaskFailure(ctx, t, c, id)
				require.Contains(t, failed, loop.ErrUnknownRules.Error())
				require.Contains(t, failed, tc.reason)

				// Both builds poll the queue for a moment; then the older goes.
				newer = startBuild(t, c, queue, cfg, tc.newer)
				older.Stop()
				defer newer.Stop()
				waitAnswers(ctx, t, c, id, 2)
				require.NoError(t, c.SignalWorkflow(ctx, id, "", signals.DisposeSignal.Name, signals.Dispose{Cause: "test over"}))
				require.NoError(t, run.Get(ctx, nil), "the run completes")
				requireNothingRecordedByTheRefusal(ctx, t, c, id)
			})
		}
	}
}

// startBuild runs the agent workflow as b on queue, with a model that
// answers "ok" to every call.
func startBuild(t *testing.T, c client.Client, queue string, cfg Config, b build) worker.Worker {
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(Agent{Config: cfg, build: b}.Run, workflow.RegisterOptions{Name: signals.AgentWorkflow})
	w.RegisterActivityWithOptions(func(context.Context, signals.ModelInput) (signals.ModelOutput, error) {
		return answer("ok"), nil
	}, activity.RegisterOptions{Name: signals.ModelActivity})
	require.NoError(t, w.Start())
	return w
}

// waitAnswers waits until the agent's log holds n assistant messages, and
// fails if it ever holds more.
func waitAnswers(ctx context.Context, t *testing.T, c client.Client, id string, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		v, err := c.QueryWorkflow(ctx, id, "", signals.LogQuery.Name, signals.LogRequest{})
		if err != nil {
			return false
		}
		var page signals.LogPage
		require.NoError(t, v.Get(&page))
		evs, err := eventlog.DecodeAll(page.Events)
		require.NoError(t, err)
		got := len(only[eventlog.AssistantMessage](evs))
		require.LessOrEqual(t, got, n, "an answer given twice")
		return got == n
	}, time.Minute, 100*time.Millisecond)
}

// waitNoTask waits until id has no workflow task pending: the build that
// ran the turn has finished with it.
func waitNoTask(ctx context.Context, t *testing.T, c client.Client, id string) {
	t.Helper()
	require.Eventually(t, func() bool {
		d, err := c.DescribeWorkflowExecution(ctx, id, "")
		return err == nil && d.GetPendingWorkflowTask() == nil
	}, time.Minute, 50*time.Millisecond)
}

// waitTaskFailure waits for a failed workflow task in id's history and
// returns its failure's message.
func waitTaskFailure(ctx context.Context, t *testing.T, c client.Client, id string) string {
	t.Helper()
	var msg string
	require.Eventually(t, func() bool {
		it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			require.NoError(t, err)
			if a := ev.GetWorkflowTaskFailedEventAttributes(); a != nil {
				msg = a.GetFailure().GetMessage() + " " + a.GetFailure().GetStackTrace()
				return true
			}
		}
		return false
	}, time.Minute, 100*time.Millisecond)
	return msg
}

// requireNothingRecordedByTheRefusal: the refused tasks completed no
// command; every marker and side effect of the run was recorded once, by
// the newer build (its one run config).
func requireNothingRecordedByTheRefusal(ctx context.Context, t *testing.T, c client.Client, id string) {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var configs int
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		m := ev.GetMarkerRecordedEventAttributes()
		if m == nil || m.GetMarkerName() != "Version" {
			continue
		}
		for _, d := range m.GetDetails() {
			for _, p := range d.GetPayloads() {
				if strings.Contains(string(p.GetData()), runConfigChange) {
					configs++
				}
			}
		}
	}
	require.Equal(t, 1, configs, "one run config, recorded by the build that started the run")
}
