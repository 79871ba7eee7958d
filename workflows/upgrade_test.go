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
	"go.temporal.io/sdk/interceptor"
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
				newer, _ := startBuild(t, c, queue, cfg, tc.newer)
				id := "agent-" + queue
				run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue},
					signals.AgentWorkflow, signals.AgentInput{Options: signals.AgentOptions{Hooks: []string{}},
						First: &signals.Message{ID: "m0", Content: "hello"}})
				require.NoError(t, err)
				waitAnswers(ctx, t, c, id, 1)
				waitNoTask(ctx, t, c, id)
				newer.Stop()

				older, refused := startBuild(t, c, queue, cfg, tc.older)
				require.NoError(t, c.SignalWorkflow(ctx, id, "", signals.FollowupSignal.Name,
					signals.Message{ID: "m1", Content: "again"}))
				var failed string
				select {
				case failed = <-refused:
				case <-time.After(time.Minute):
					t.Fatal("the older build never refused the run")
				}
				require.Contains(t, failed, loop.ErrUnknownRules.Error())
				require.Contains(t, failed, tc.reason)

				// Both builds poll the queue for a moment; then the older goes.
				newer, _ = startBuild(t, c, queue, cfg, tc.newer)
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
// answers "ok" to every call. refused gets the reason of every workflow
// task the build fails by panicking.
func startBuild(t *testing.T, c client.Client, queue string, cfg Config, b build) (w worker.Worker, refused <-chan string) {
	panics := make(chan string, 100)
	report := func(reason string) {
		select {
		case panics <- reason:
		default:
		}
	}
	w = worker.New(c, queue, worker.Options{Interceptors: []interceptor.WorkerInterceptor{&panicSeen{report: report}}})
	w.RegisterWorkflowWithOptions(Agent{Config: cfg, build: b}.Run, workflow.RegisterOptions{Name: signals.AgentWorkflow})
	w.RegisterActivityWithOptions(func(context.Context, signals.ModelInput) (signals.ModelOutput, error) {
		return answer("ok"), nil
	}, activity.RegisterOptions{Name: signals.ModelActivity})
	require.NoError(t, w.Start())
	return w, panics
}

// panicSeen reports the panics of workflow code (which fail its workflow
// task) before passing them on to the SDK.
type panicSeen struct {
	interceptor.WorkerInterceptorBase
	report func(reason string)
}

func (p *panicSeen) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &panicSeenInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, report: p.report}
}

type panicSeenInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	report func(reason string)
}

func (p *panicSeenInbound) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	defer func() {
		if v := recover(); v != nil {
			p.report(fmt.Sprint(v))
			panic(v)
		}
	}()
	return p.Next.ExecuteWorkflow(ctx, in)
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
	var last int64
	require.Eventually(t, func() bool {
		d, err := c.DescribeWorkflowExecution(ctx, id, "")
		if err != nil || d.GetPendingWorkflowTask() != nil || len(d.GetPendingActivities()) > 0 {
			return false
		}
		n := d.GetWorkflowExecutionInfo().GetHistoryLength()
		settled := n == last
		last = n
		return settled
	}, time.Minute, 300*time.Millisecond)
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

// With Worker Deployment Versioning an agent's runs are pinned: after a
// newer version is made current the agent's turns still run on the version
// that started the run; its Continue-As-New (here after each second turn)
// starts the next run on the current version, where the agent goes on.
func TestAVersionedAgentMovesToTheCurrentVersionAtContinueAsNew(t *testing.T) {
	ts := testserver.New(t)
	c := ts.GetDefaultClient()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	const queue, deployment = "versioned", "tether-versioned"
	cfg := Config{NoSearchAttributes: true, MaxRunTurns: 2}
	start := func(buildID string) worker.Worker {
		w := worker.New(c, queue, worker.Options{DeploymentOptions: worker.DeploymentOptions{UseVersioning: true,
			Version: worker.WorkerDeploymentVersion{DeploymentName: deployment, BuildID: buildID}}})
		RegisterVersioned(w, cfg)
		w.RegisterActivityWithOptions(func(context.Context, signals.ModelInput) (signals.ModelOutput, error) {
			return answer("ok"), nil
		}, activity.RegisterOptions{Name: signals.ModelActivity})
		require.NoError(t, w.Start())
		return w
	}
	makeCurrent := func(buildID string) {
		h := c.WorkerDeploymentClient().GetHandle(deployment)
		require.Eventually(t, func() bool { // the version exists once its worker polled
			_, err := h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: buildID})
			return err == nil
		}, time.Minute, 200*time.Millisecond)
	}
	buildOf := func(runID string) string {
		d, err := c.DescribeWorkflowExecution(ctx, "agent-v", runID)
		require.NoError(t, err)
		return d.GetWorkflowExecutionInfo().GetVersioningInfo().GetDeploymentVersion().GetBuildId()
	}
	v1 := start("v1")
	defer v1.Stop()
	makeCurrent("v1")
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "agent-v", TaskQueue: queue},
		signals.AgentWorkflow, signals.AgentInput{Options: signals.AgentOptions{Hooks: []string{}},
			First: &signals.Message{ID: "m0", Content: "hello"}})
	require.NoError(t, err)
	waitAnswers(ctx, t, c, "agent-v", 1)
	require.Equal(t, "v1", buildOf(run.GetRunID()))

	v2 := start("v2")
	defer v2.Stop()
	makeCurrent("v2")
	require.NoError(t, c.SignalWorkflow(ctx, "agent-v", "", signals.FollowupSignal.Name, signals.Message{ID: "m1", Content: "again"}))
	require.Eventually(t, func() bool {
		d, err := c.DescribeWorkflowExecution(ctx, "agent-v", run.GetRunID())
		require.NoError(t, err)
		return d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW
	}, time.Minute, 100*time.Millisecond, "the second turn ends the run (MaxRunTurns)")
	require.Equal(t, "v1", buildOf(run.GetRunID()), "the pinned run stayed on the version that started it")

	var next string
	require.Eventually(t, func() bool {
		d, err := c.DescribeWorkflowExecution(ctx, "agent-v", "")
		if err != nil || d.GetWorkflowExecutionInfo().GetExecution().GetRunId() == run.GetRunID() {
			return false
		}
		next = d.GetWorkflowExecutionInfo().GetExecution().GetRunId()
		return buildOf(next) == "v2"
	}, time.Minute, 100*time.Millisecond, "the next run moves to the current version")
	require.NoError(t, c.SignalWorkflow(ctx, "agent-v", "", signals.FollowupSignal.Name, signals.Message{ID: "m2", Content: "on v2"}))
	v1.Stop() // the old version drained: the agent answers on v2 alone
	require.Eventually(t, func() bool {
		v, err := c.QueryWorkflow(ctx, "agent-v", "", signals.StatusQuery.Name, struct{}{})
		if err != nil {
			return false
		}
		var st signals.StatusView
		require.NoError(t, v.Get(&st))
		return st.Turn == 3 && st.Idle()
	}, time.Minute, 100*time.Millisecond)
	require.Equal(t, "v2", buildOf(next))
	require.NoError(t, c.SignalWorkflow(ctx, "agent-v", "", signals.DisposeSignal.Name, signals.Dispose{Cause: "test over"}))
}
