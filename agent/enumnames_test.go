package agent

import (
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
)

// Statuses read as the README and ClosedError.How name them, from the
// enums' proto names: the enums' String() says TimedOut and
// CancelRequested, which read "timedout" and matched no closure.
func TestEnumWordsAreTheProtoNamesInLowerCase(t *testing.T) {
	require.Equal(t, "timed_out", endedAs(enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT))
	require.Equal(t, "continued_as_new", endedAs(enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW))
	require.Equal(t, "completed", endedAs(enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED))
	require.Equal(t, "timed-out", endedWord(endedAs(enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT)), "a timed-out agent reads as every view says it")
	require.Equal(t, "disposed", endedWord(endedAs(enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED)), "an agent completes only once disposed")
	require.Equal(t, "cancel_requested", activityState(enumspb.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED))
}
