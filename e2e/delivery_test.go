package e2e

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// failedTask is the server's answer to an update while the run's workflow
// task keeps failing, as a loaded cluster gave it for a followup it ran.
var failedTask = serviceerror.NewWorkflowNotReady("Unable to perform workflow execution update due to Workflow Task in failed state.")

// failUpdates makes the first n update calls fail with err: after the
// server performed them (performed), or before anything was sent.
func failUpdates(n int32, performed bool, err error) grpc.UnaryClientInterceptor {
	var left atomic.Int32
	left.Store(n)
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if method != workflowservice.WorkflowService_UpdateWorkflowExecution_FullMethodName || left.Add(-1) < 0 {
			return invoker(ctx, method, req, reply, cc, opts...)
		}
		if performed {
			if err := invoker(ctx, method, req, reply, cc, opts...); err != nil {
				return err
			}
		}
		return serviceerror.ToStatus(err).Err()
	}
}

// agentsThrough is a Client whose connection passes every call through icpt.
func (e *env) agentsThrough(icpt grpc.UnaryClientInterceptor) *agent.Client {
	c := e.ts.NewClientWithOptions(client.Options{ConnectionOptions: client.ConnectionOptions{
		DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(icpt)},
	}})
	return agent.New(c, signals.TaskQueue)
}

// An acknowledged followup whose answer is a transient failure is sent
// again under the same message ID: whether the server performed the first
// attempt or never saw it, the agent gets the message once and the caller
// a success.
func TestAnAcknowledgedSendIsRetriedThroughTransientFailuresAndDeliveredOnce(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, time.Minute)
	for _, c := range []struct {
		name      string
		performed bool
		err       error
	}{
		{"performed, answer lost", true, failedTask},
		{"refused before the server", false, failedTask},
		{"attempt timed out", true, serviceerror.NewDeadlineExceeded("context deadline exceeded")},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := "retry-" + string(agent.NewMessageID())
			_, err := e.agents.Create(ctx, agent.CreateOptions{ID: id})
			require.NoError(t, err)
			h, err := e.agentsThrough(failUpdates(1, c.performed, c.err)).Attach(ctx, id)
			require.NoError(t, err)

			ack, err := h.Followup(ctx, "/say once", agent.WithMessageID("m-1"), agent.Acknowledged())
			require.NoError(t, err)
			require.Equal(t, eventlog.MessageID("m-1"), ack.MessageID)
			idleAcrossRuns(ctx, t, h)
			require.Equal(t, 1, inserted(t, h)["m-1"], "delivered exactly once")
		})
	}
}

// When the caller's deadline ends while every attempt fails transiently,
// the error says the delivery is unknown and names the message ID to send
// again with; a resend under it then delivers the message once.
func TestAnAcknowledgedSendThatOutlivesItsDeadlineSaysDeliveryIsUnknown(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, time.Minute)
	_, err := e.agents.Create(ctx, agent.CreateOptions{ID: "unknown"})
	require.NoError(t, err)
	h, err := e.agentsThrough(failUpdates(1000, true, failedTask)).Attach(ctx, "unknown")
	require.NoError(t, err)

	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = h.Followup(short, "/say maybe", agent.WithMessageID("m-2"), agent.Acknowledged())
	var unknown *agent.DeliveryUnknownError
	require.ErrorAs(t, err, &unknown)
	require.ErrorIs(t, err, agent.ErrDeliveryUnknown)
	require.Equal(t, eventlog.MessageID("m-2"), unknown.MessageID)
	require.Greater(t, unknown.Attempts, 1, "it tried again within the deadline")
	require.Contains(t, err.Error(), "Workflow Task in failed state", "the last attempt's error")

	plain, err := e.agents.Attach(ctx, "unknown")
	require.NoError(t, err)
	_, err = plain.Followup(ctx, "/say maybe", agent.WithMessageID("m-2"), agent.Acknowledged())
	require.ErrorIs(t, err, agent.ErrAlreadyDelivered, "the server performed the attempts")
	idleAcrossRuns(ctx, t, plain)
	require.Equal(t, 1, inserted(t, plain)["m-2"], "delivered once across all the attempts")
}

// countUpdates counts the update calls that reach the connection.
func countUpdates(n *atomic.Int32) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if method == workflowservice.WorkflowService_UpdateWorkflowExecution_FullMethodName {
			n.Add(1)
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}

// A 3 MB message never leaves the Go client: it is refused, typed, before
// anything is sent. Sent raw, past the client, the server admits it and the
// worker's rejection, which echoes the whole request, is over the SDK's
// 2 MiB payload limit: the workflow task fails (PayloadsTooLarge) until the
// server gives up on the update with "Workflow Task in failed state". The
// agent then takes the next acknowledged message, delivered once.
func TestAMessageOverTheLimitIsRefusedBeforeSendingAndARawOneDoesNotWedgeTheAgent(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, time.Minute)
	_, err := e.agents.Create(ctx, agent.CreateOptions{ID: "big"})
	require.NoError(t, err)
	var sent atomic.Int32
	h, err := e.agentsThrough(countUpdates(&sent)).Attach(ctx, "big")
	require.NoError(t, err)
	huge := strings.Repeat("x", 3<<20)
	_, err = h.Followup(ctx, huge, agent.Acknowledged())
	require.ErrorIs(t, err, signals.ErrMessageTooLarge)
	require.Zero(t, sent.Load(), "nothing was sent")

	m := signals.Message{ID: "raw-big", Content: huge}
	u, err := e.c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: "big", UpdateID: string(m.ID),
		UpdateName: signals.FollowupUpdate.Name, Args: []any{m}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err == nil {
		err = u.Get(ctx, nil)
	}
	var wnr *serviceerror.WorkflowNotReady
	require.ErrorAs(t, err, &wnr)
	require.Contains(t, err.Error(), "Workflow Task in failed state")
	require.Equal(t, enumspb.WORKFLOW_TASK_FAILED_CAUSE_PAYLOADS_TOO_LARGE, lastTaskFailure(ctx, t, e.c, "big"))

	_, err = h.Followup(ctx, "/say after", agent.WithMessageID("after"), agent.Acknowledged())
	require.NoError(t, err)
	idleAcrossRuns(ctx, t, h)
	n := inserted(t, h)
	require.Equal(t, 1, n["after"])
	require.Zero(t, n["raw-big"])
}

// lastTaskFailure is the cause of the last failed workflow task in id's history.
func lastTaskFailure(ctx context.Context, t *testing.T, c client.Client, id string) enumspb.WorkflowTaskFailedCause {
	t.Helper()
	var cause enumspb.WorkflowTaskFailedCause
	for it := c.GetWorkflowHistory(ctx, id, "", false, 0); it.HasNext(); {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetWorkflowTaskFailedEventAttributes(); a != nil {
			cause = a.GetCause()
		}
	}
	return cause
}
