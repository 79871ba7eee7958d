package devserver

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Durable names of the test workflow.
const (
	testTaskQueue  = "devserver-test"
	waiterWorkflow = "devserver.Waiter"
	wakeSignal     = "wake"
	startedQuery   = "started"
)

// waiter blocks until it receives wakeSignal and returns its payload.
func waiter(ctx workflow.Context) (string, error) {
	if err := workflow.SetQueryHandler(ctx, startedQuery, func() (bool, error) { return true, nil }); err != nil {
		return "", err
	}
	var msg string
	workflow.GetSignalChannel(ctx, wakeSignal).Receive(ctx, &msg)
	return "woke: " + msg, nil
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// startServer starts a server that is stopped when the test ends.
func startServer(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := Start(testContext(t), opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Stop()) })
	return s
}

func dial(t *testing.T, s *Server) client.Client {
	t.Helper()
	c, err := client.Dial(client.Options{
		HostPort:  s.HostPort(),
		Namespace: s.Namespace(),
		Logger:    sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)),
	})
	require.NoError(t, err)
	return c
}

func startWorker(t *testing.T, c client.Client) worker.Worker {
	t.Helper()
	w := worker.New(c, testTaskQueue, worker.Options{})
	w.RegisterWorkflowWithOptions(waiter, workflow.RegisterOptions{Name: waiterWorkflow})
	require.NoError(t, w.Start())
	return w
}

// listIDs polls visibility, which lags behind starts, until query matches
// want workflows or ctx ends.
func listIDs(ctx context.Context, t *testing.T, c client.Client, query string, want int) []string {
	t.Helper()
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query})
		require.NoError(t, err)
		if len(resp.GetExecutions()) >= want {
			var ids []string
			for _, e := range resp.GetExecutions() {
				ids = append(ids, e.GetExecution().GetWorkflowId())
			}
			return ids
		}
		require.NoError(t, pause(ctx), "waiting for %d workflows matching %q", want, query)
	}
}
