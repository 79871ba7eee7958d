package signals

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEndedReadsEveryFormOfTemporalsCloseStatusAsOneWord(t *testing.T) {
	for in, want := range map[string]Ended{
		"WORKFLOW_EXECUTION_STATUS_COMPLETED": EndedDisposed, "Completed": EndedDisposed, "completed": EndedDisposed,
		"WORKFLOW_EXECUTION_STATUS_FAILED": EndedFailed, "Terminated": EndedTerminated, "canceled": EndedCanceled,
		"WORKFLOW_EXECUTION_STATUS_TIMED_OUT": EndedTimedOut, "TimedOut": EndedTimedOut, "timed_out": EndedTimedOut,
		"disposed": EndedDisposed, "timed-out": EndedTimedOut,
		"WORKFLOW_EXECUTION_STATUS_RUNNING": "", "ContinuedAsNew": "", "": "",
	} {
		require.Equal(t, want, EndedFrom(in), in)
	}
}
