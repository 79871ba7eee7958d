package agent

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/signals"
)

func TestAcknowledgedSendsRetryOnlyWhatMaySucceedNext(t *testing.T) {
	for _, c := range []struct {
		name  string
		err   error
		again bool
	}{
		{"workflow task in failed state", serviceerror.NewWorkflowNotReady("Unable to perform workflow execution update due to Workflow Task in failed state."), true},
		{"run continuing as new", serviceerror.NewResourceExhausted(0, "workflow operation can not be applied because workflow is closing"), true},
		{"unavailable", fmt.Errorf("update: %w", serviceerror.NewUnavailable("connection refused")), true},
		{"accepted, then the run continued as new", temporal.NewNonRetryableApplicationError("closed", acceptedThenClosed, nil), true},
		{"one attempt timed out", client.NewWorkflowUpdateServiceTimeoutOrCanceledError(serviceerror.NewDeadlineExceeded("deadline")), true},
		{"the caller's deadline", context.DeadlineExceeded, true},
		{"message too large for gRPC", serviceerror.NewResourceExhausted(0, "grpc: received message larger than max (5000000 vs. 4194304)"), false},
		{"a validator's rejection", temporal.NewNonRetryableApplicationError("dup", signals.RejectDuplicate, nil), false},
		{"closed agent", serviceerror.NewNotFound("workflow execution already completed"), false},
		{"anything else", errors.New("boom"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.again, transient(c.err) || timedOut(c.err))
		})
	}
}
