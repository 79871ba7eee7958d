package transcript

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

func TestChildrenAreFoldedFromTheParentsLogWithTheirReportsAndEnd(t *testing.T) {
	tr, err := Build(log(t,
		eventlog.ChildStarted{ChildID: "p/c1", CallID: "s1", Mode: eventlog.ChildWait},
		eventlog.ChildStarted{ChildID: "p/c2", Mode: eventlog.ChildDetach},
		eventlog.ChildSettled{ChildID: "p/c1", Turn: 1, Reason: eventlog.EndCompleted, Usage: eventlog.Usage{InputTokens: 10, OutputTokens: 5}},
		eventlog.ChildSettled{ChildID: "p/c2", Turn: 1, Reason: eventlog.EndCompleted, Usage: eventlog.Usage{InputTokens: 1, OutputTokens: 1}},
		eventlog.ChildSettled{ChildID: "p/c2", Turn: 2, Reason: eventlog.EndCompleted, Usage: eventlog.Usage{InputTokens: 2, OutputTokens: 2}},
		eventlog.ChildEnded{ChildID: "p/c1", Status: "completed"},
		eventlog.ChildSettled{ChildID: "unknown", Turn: 1},
	), signals.Prices{})
	require.NoError(t, err)
	require.Len(t, tr.Children, 2, "a report of a child the log never started adds none")
	c1, c2 := tr.Children[0], tr.Children[1]
	require.Equal(t, Child{ID: "p/c1", Mode: eventlog.ChildWait, Settled: 1, Usage: Usage{Input: 10, Output: 5}, Ended: "completed"}, *c1)
	require.Equal(t, Child{ID: "p/c2", Mode: eventlog.ChildDetach, Settled: 2, Usage: Usage{Input: 3, Output: 3}}, *c2)
	require.Same(t, c2, tr.Child("p/c2"))
}
