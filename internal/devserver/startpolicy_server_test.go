package devserver_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/tetherdev/tether"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/internal/devserver"
	"github.com/tetherdev/tether/signals"
)

// A client that knows nothing of Tether's rule (a raw SDK client, a gRPC
// request as another language's SDK sends it) cannot open a second session
// under a closed agent's ID on the embedded server: its start is refused and
// the old agent's log still reads; a start asking for a policy that would
// reuse the ID is refused naming the rule; a running agent is neither
// replaced nor terminated by a start; other workflow types keep
// Temporal's defaults.
func TestTheServerRefusesASecondSessionUnderAClosedAgentsID(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := devserver.Start(ctx, devserver.Options{SearchAttributes: devserver.DefaultSearchAttributes()})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Stop()) })
	c, err := client.Dial(client.Options{HostPort: s.HostPort(), Namespace: s.Namespace(),
		Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	require.NoError(t, err)
	defer c.Close()
	stopWorker := runWorker(t, s)
	defer stopWorker()

	agents := agent.New(c, "")
	h, err := agents.Create(ctx, agent.CreateOptions{ID: "closed-agent", First: "hello", Options: signals.AgentOptions{Provider: "scripted"}})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Dispose(ctx, "done"))
	before, err := h.Log(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, before)
	oldRun := latestRun(ctx, t, c, "closed-agent")

	// The Go SDK's defaults: the server refuses the start, and the SDK hands
	// back the closed run instead of a new one.
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "closed-agent", TaskQueue: signals.TaskQueue},
		signals.AgentWorkflow, signals.AgentInput{})
	require.NoError(t, err)
	require.Equal(t, oldRun, run.GetRunID())
	_, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "closed-agent", TaskQueue: signals.TaskQueue,
		WorkflowExecutionErrorWhenAlreadyStarted: true}, signals.AgentWorkflow, signals.AgentInput{})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	require.ErrorAs(t, err, &started)

	// The request another SDK sends with no policy set, and signal-with-start.
	_, err = c.WorkflowService().StartWorkflowExecution(ctx, rawStart("closed-agent", signals.AgentWorkflow, 0))
	require.ErrorAs(t, err, &started)
	_, err = c.SignalWithStartWorkflow(ctx, "closed-agent", signals.FollowupSignal.Name, signals.Message{ID: "m-1", Content: "again"},
		client.StartWorkflowOptions{TaskQueue: signals.TaskQueue}, signals.AgentWorkflow, signals.AgentInput{})
	require.ErrorAs(t, err, &started)

	// Asking to reuse the ID is refused, naming the rule.
	for _, policy := range []enumspb.WorkflowIdReusePolicy{enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		//lint:ignore SA1019 the deprecated policy is refused too
		enumspb.WORKFLOW_ID_REUSE_POLICY_TERMINATE_IF_RUNNING} {
		_, err = c.WorkflowService().StartWorkflowExecution(ctx, rawStart("closed-agent", signals.AgentWorkflow, policy))
		var invalid *serviceerror.InvalidArgument
		require.ErrorAs(t, err, &invalid, policy.String())
		require.Contains(t, err.Error(), "is refused: an agent's ID names one session, so Tether's server starts tether.Agent only with WorkflowIdReusePolicy REJECT_DUPLICATE")
	}
	_, err = c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{ID: "closed-agent", TaskQueue: signals.TaskQueue,
			WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
			WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE}, signals.AgentWorkflow, signals.AgentInput{}),
		UpdateOptions: client.UpdateWorkflowOptions{UpdateName: signals.FollowupUpdate.Name, Args: []any{signals.Message{ID: "m-2", Content: "again"}},
			WaitForStage: client.WorkflowUpdateStageAccepted},
	})
	require.ErrorContains(t, err, "WorkflowIdReusePolicy ALLOW_DUPLICATE is refused")

	require.Equal(t, oldRun, latestRun(ctx, t, c, "closed-agent"), "no second run under the ID")
	attached, err := agents.Attach(ctx, "closed-agent")
	require.ErrorIs(t, err, agent.ErrClosed)
	after, err := attached.Log(ctx)
	require.NoError(t, err)
	require.Equal(t, before, after, "the old agent's log still reads")

	// Under a running agent's ID: a start fails, one that would terminate
	// the agent is refused, and signal-with-start only signals it.
	live, err := agents.Create(ctx, agent.CreateOptions{ID: "running-agent", Options: signals.AgentOptions{Provider: "scripted"}})
	require.NoError(t, err)
	liveRun := latestRun(ctx, t, c, "running-agent")
	_, err = c.WorkflowService().StartWorkflowExecution(ctx, rawStart("running-agent", signals.AgentWorkflow, 0))
	require.ErrorAs(t, err, &started)
	terminate := rawStart("running-agent", signals.AgentWorkflow, 0)
	terminate.WorkflowIdConflictPolicy = enumspb.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING
	_, err = c.WorkflowService().StartWorkflowExecution(ctx, terminate)
	require.ErrorContains(t, err, "WorkflowIdConflictPolicy TERMINATE_EXISTING is refused")
	signalled, err := c.SignalWithStartWorkflow(ctx, "running-agent", signals.FollowupSignal.Name, signals.Message{ID: "m-3", Content: "hi"},
		client.StartWorkflowOptions{TaskQueue: signals.TaskQueue}, signals.AgentWorkflow, signals.AgentInput{})
	require.NoError(t, err)
	require.Equal(t, liveRun, signalled.GetRunID())
	require.Eventually(t, func() bool {
		st, err := live.Status(ctx)
		return err == nil && st.Turn == 1 && st.Idle()
	}, time.Minute, 50*time.Millisecond, "the signalled followup runs a turn in the same session")
	require.Equal(t, liveRun, latestRun(ctx, t, c, "running-agent"))

	// Another workflow type keeps Temporal's default: a closed ID is reused.
	_, err = c.WorkflowService().StartWorkflowExecution(ctx, rawStart("not-an-agent", "other.Workflow", 0))
	require.NoError(t, err)
	require.NoError(t, c.TerminateWorkflow(ctx, "not-an-agent", "", "closed"))
	first := latestRun(ctx, t, c, "not-an-agent")
	_, err = c.WorkflowService().StartWorkflowExecution(ctx, rawStart("not-an-agent", "other.Workflow", 0))
	require.NoError(t, err)
	require.NotEqual(t, first, latestRun(ctx, t, c, "not-an-agent"))
}

// rawStart is a start as a client of another language sends it: the
// workflow type by name, JSON input, the policy as given (0: unspecified).
func rawStart(id, workflowType string, reuse enumspb.WorkflowIdReusePolicy) *workflowservice.StartWorkflowExecutionRequest {
	return &workflowservice.StartWorkflowExecutionRequest{
		Namespace:             "default",
		WorkflowId:            id,
		WorkflowType:          &commonpb.WorkflowType{Name: workflowType},
		TaskQueue:             &taskqueuepb.TaskQueue{Name: signals.TaskQueue},
		Input:                 &commonpb.Payloads{Payloads: []*commonpb.Payload{{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(`{"options":{}}`)}}},
		RequestId:             id + "-" + time.Now().Format(time.RFC3339Nano),
		WorkflowIdReusePolicy: reuse,
	}
}

func latestRun(ctx context.Context, t *testing.T, c client.Client, id string) string {
	t.Helper()
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	return d.GetWorkflowExecutionInfo().GetExecution().GetRunId()
}

// runWorker runs Tether's worker on s until the returned stop is called.
func runWorker(t *testing.T, s *devserver.Server) (stop func()) {
	t.Helper()
	logs := &syncBuffer{}
	w, err := tether.NewWorker(tether.FromFlags([]string{"--address", s.HostPort(), "--namespace", s.Namespace(), "--provider", "scripted"}),
		tether.WithEnv(func(string) string { return "" }), tether.WithLog(logs))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "Started Worker") }, time.Minute, 50*time.Millisecond, logs.String())
	return func() {
		cancel()
		require.NoError(t, <-ran, logs.String())
	}
}

// syncBuffer is written by the worker and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
