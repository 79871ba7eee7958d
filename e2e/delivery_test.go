package e2e

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
	require.NoError(t, err)
	idleAcrossRuns(ctx, t, plain)
	require.Equal(t, 1, inserted(t, plain)["m-2"], "delivered once across all the attempts")
}
