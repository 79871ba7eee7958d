package agent

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

func TestListQueryFiltersByTetherAttributesWithQuotedValues(t *testing.T) {
	turn0, turn3 := 0, 3
	const base = "WorkflowType = 'tether.Agent' AND ExecutionStatus = 'Running'"
	cases := []struct {
		name string
		o    ListOptions
		want string
	}{
		{"no filter: open agents", ListOptions{}, base},
		{"closed ones too, without continued runs", ListOptions{Closed: true},
			"WorkflowType = 'tether.Agent' AND ExecutionStatus != 'ContinuedAsNew'"},
		{"every filter", ListOptions{Status: eventlog.StatusIdle, Model: "openai/gpt-4o-mini", Parent: "p1", Turn: &turn3},
			base + " AND TetherStatus = 'idle' AND TetherModel = 'openai/gpt-4o-mini' AND TetherParent = 'p1' AND TetherTurn = 3"},
		{"turn zero is a filter", ListOptions{Turn: &turn0}, base + " AND TetherTurn = 0"},
		{"the children of several parents", ListOptions{Parents: []string{"p1", "p'2"}},
			base + ` AND TetherParent IN ('p1', 'p\'2')`},
		{"root agents: no parent", ListOptions{Roots: true}, base + " AND TetherParent IS NULL"},
		{"a quote cannot end the literal", ListOptions{Parent: "x' OR WorkflowType = 'tether.Agent"},
			base + ` AND TetherParent = 'x\' OR WorkflowType = \'tether.Agent'`},
		{"a backslash cannot escape the closing quote", ListOptions{Model: `m\`},
			base + ` AND TetherModel = 'm\\'`},
		{"parents ending in a backslash or holding quotes", ListOptions{Parents: []string{`p\`, `a'b"c`}},
			base + ` AND TetherParent IN ('p\\', 'a\'b"c')`},
		{"only agents that ended", ListOptions{Ended: true},
			"WorkflowType = 'tether.Agent' AND ExecutionStatus != 'Running' AND ExecutionStatus != 'ContinuedAsNew'"},
		{"a turn compared, a prefix, waiting for anything by a time",
			ListOptions{Turn: &turn3, TurnOp: ">=", Prefix: `it's\`, Waiting: WaitingAny, WaitUntil: time.Date(2026, 1, 2, 15, 4, 0, 0, time.FixedZone("", 3600))},
			base + ` AND TetherWaiting IS NOT NULL AND TetherTurn >= 3 AND TetherWaitUntil <= '2026-01-02T14:04:00Z' AND WorkflowId STARTS_WITH 'it\'s\\'`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.o.Query()
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestListQueryRejectsAnUnknownStatus(t *testing.T) {
	_, err := ListOptions{Status: "idle' OR 1=1"}.Query()
	require.ErrorIs(t, err, ErrBadFilter)
}

func TestListQueryRejectsATurnComparisonOrAStatusItCannotAsk(t *testing.T) {
	three := 3
	_, err := ListOptions{Turn: &three, TurnOp: "=="}.Query()
	require.ErrorIs(t, err, ErrBadFilter)
	_, err = ListOptions{Status: eventlog.StatusIdle, Ended: true}.Query()
	require.ErrorIs(t, err, ErrBadFilter)
}

func TestListQueryRejectsParentWithParents(t *testing.T) {
	_, err := ListOptions{Parent: "p1", Parents: []string{"p2"}}.Query()
	require.ErrorIs(t, err, ErrBadFilter)
	_, err = ListOptions{Parent: "p1", Roots: true}.Query()
	require.ErrorIs(t, err, ErrBadFilter)
}

// A build filter narrows the query to the runs the build completed a task
// of (the server's BuildIds, unversioned or versioned), quoted like every
// value; a value no build ID can be is refused before any query.
func TestListQueryNarrowsToABuildAndRefusesOneNoBuildCanHave(t *testing.T) {
	got, err := ListOptions{Build: "1a2b3c4d5e6f"}.Query()
	require.NoError(t, err)
	require.Equal(t, "WorkflowType = 'tether.Agent' AND ExecutionStatus = 'Running' AND "+
		"BuildIds IN ('unversioned:1a2b3c4d5e6f', 'versioned:1a2b3c4d5e6f')", got)
	got, err = ListOptions{Build: `x'\`}.Query()
	require.NoError(t, err)
	require.Contains(t, got, `BuildIds IN ('unversioned:x\'\\', 'versioned:x\'\\')`)
	for _, bad := range []string{"a b", "tab\there", "line\n", "\x00", string(make([]byte, 256))} {
		_, err := ListOptions{Build: bad}.Query()
		require.ErrorIs(t, err, ErrBadFilter, "%q", bad)
	}
}

// A build filter keeps only that build's agents of a page.
func TestKeepBuildKeepsOnlyTheBuildsAgents(t *testing.T) {
	all := []Summary{{ID: "a", Build: "x"}, {ID: "b", Build: "y"}, {ID: "c"}, {ID: "d", Build: "x"}}
	require.Equal(t, all, keepBuild(slices.Clone(all), ""))
	require.Equal(t, []Summary{{ID: "a", Build: "x"}, {ID: "d", Build: "x"}}, keepBuild(slices.Clone(all), "x"))
	require.Empty(t, keepBuild(slices.Clone(all), "z"))
}
