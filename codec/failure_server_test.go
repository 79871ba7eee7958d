package codec_test

import (
	"context"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/internal/testserver"
)

const childSecret = "the child failed on /home/op/secret.txt"

// readFailure is the message and type of the ApplicationError in err.
func readFailure(err error) string {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return "no application error: " + err.Error()
	}
	return app.Message() + " (" + app.Type() + ")"
}

func parentWorkflow(ctx workflow.Context) (string, error) {
	ctx = workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: "failing-child"})
	return readFailure(workflow.ExecuteChildWorkflow(ctx, "child").Get(ctx, nil)), nil
}

func childWorkflow(workflow.Context) error {
	return temporal.NewNonRetryableApplicationError(childSecret, "ChildFailed", nil)
}

// victimWorkflow waits for an activity someone else completes.
func victimWorkflow(ctx workflow.Context) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{ActivityID: "wait", StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
	return readFailure(workflow.ExecuteActivity(ctx, "wait").Get(ctx, nil)), nil
}

func waitActivity(context.Context) error { return activity.ErrResultPending }

// Issue 20: an encrypted child's failure is bound to the child, as its
// payloads are: its parent reads it, and the same failure copied into
// another workflow (an activity failed by ID, by a client holding no key)
// is not decrypted there.
func TestAChildsFailureIsReadByItsParentAndRefusedWhenCopiedIntoAnotherWorkflow(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := testserver.New(t)
	key := codec.Key{ID: "k1", Secret: make([]byte, codec.KeySize)}
	_, err := rand.Read(key.Secret)
	require.NoError(t, err)
	opts := client.Options{HostPort: srv.GetFrontendHostPort()}
	_, err = codec.Configure(&opts, codec.Config{Keys: []codec.Key{key}})
	require.NoError(t, err)
	c := srv.NewClientWithOptions(opts)
	w := worker.New(c, "failure-binding", worker.Options{})
	w.RegisterWorkflowWithOptions(parentWorkflow, workflow.RegisterOptions{Name: "parent"})
	w.RegisterWorkflowWithOptions(childWorkflow, workflow.RegisterOptions{Name: "child"})
	w.RegisterWorkflowWithOptions(victimWorkflow, workflow.RegisterOptions{Name: "victim"})
	w.RegisterActivityWithOptions(waitActivity, activity.RegisterOptions{Name: "wait"})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	start := client.StartWorkflowOptions{TaskQueue: "failure-binding"}

	start.ID = "parent"
	run, err := c.ExecuteWorkflow(ctx, start, "parent")
	require.NoError(t, err)
	var read string
	require.NoError(t, run.Get(ctx, &read))
	require.Equal(t, childSecret+" (ChildFailed)", read, "the parent reads its child's failure")

	failure := closingFailure(ctx, t, c, "failing-child")
	require.NotContains(t, failure.String(), "secret.txt", "encrypted at rest")
	require.True(t, codec.Encrypted(failure.GetEncodedAttributes()))
	require.Equal(t, "failing-child", string(failure.GetEncodedAttributes().GetMetadata()[codec.MetadataWorkflowID]))

	start.ID = "victim"
	run, err = c.ExecuteWorkflow(ctx, start, "victim")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		d, err := c.DescribeWorkflowExecution(ctx, "victim", "")
		return err == nil && len(d.GetPendingActivities()) == 1
	}, 30*time.Second, 20*time.Millisecond)
	_, err = c.WorkflowService().RespondActivityTaskFailedById(ctx, &workflowservice.RespondActivityTaskFailedByIdRequest{
		Namespace: srv.GetDefaultNamespace(), WorkflowId: "victim", ActivityId: "wait", Failure: failure, Identity: "thief",
	})
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, &read), "the copy fails no workflow")
	require.NotContains(t, read, "secret.txt", "the victim decrypted the child's failure")
	require.Equal(t, "Encoded failure (ChildFailed)", read)
}

// closingFailure is the failure workflow id closed with.
func closingFailure(ctx context.Context, t *testing.T, c client.Client, id string) *failurepb.Failure {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		if f := e.GetWorkflowExecutionFailedEventAttributes().GetFailure(); f != nil {
			return f
		}
	}
	t.Fatalf("workflow %s did not fail", id)
	return nil
}
