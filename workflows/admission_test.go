package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/signals"
)

// The history bound at its edge: a message that brings the run's history
// to exactly signals.MaxRunHistoryBytes is admitted, one byte more is
// refused busy; what was admitted in the same workflow task counts, and a
// new size from the server starts the count again.
func TestAdmissionRefusesBusyOneBytePastTheHistoryBound(t *testing.T) {
	const size, n = 10 << 20, 1 << 10
	var a admission
	require.NoError(t, a.admit(size, signals.MaxRunHistoryBytes-size), "exactly at the bound")
	require.ErrorIs(t, a.admit(size, 1), signals.ErrBusy, "one byte past it, counting what this task admitted")

	a = admission{}
	require.NoError(t, a.admit(size, n))
	err := a.admit(size, signals.MaxRunHistoryBytes-size-n+1)
	require.ErrorIs(t, err, signals.ErrBusy)
	require.ErrorContains(t, err, "limit 16777216")
	require.NoError(t, a.admit(size, signals.MaxRunHistoryBytes-size-n), "a refusal admits nothing")

	require.NoError(t, a.admit(size+n, n), "the next task's size holds what was admitted")
	require.ErrorIs(t, a.admit(signals.MaxRunHistoryBytes, 1), signals.ErrBusy)
	require.NoError(t, a.admit(signals.MaxRunHistoryBytes-1, 1))
}
