package console

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

// The list asks agent's query (agent.ListOptions), which quotes every value.
func TestFiltersBecomeOneVisibilityQuery(t *testing.T) {
	const all = "WorkflowType = 'tether.Agent' AND ExecutionStatus != 'ContinuedAsNew'"
	cases := []struct {
		name, query, want string
	}{
		{"none: every agent's last run", "", all},
		{"status", "status=idle", "WorkflowType = 'tether.Agent' AND ExecutionStatus = 'Running' AND TetherStatus = 'idle'"},
		{"closed", "status=closed", "WorkflowType = 'tether.Agent' AND ExecutionStatus != 'Running' AND ExecutionStatus != 'ContinuedAsNew'"},
		{"model and parent", "model=scripted/m1&parent=boss",
			all + " AND TetherModel = 'scripted/m1' AND TetherParent = 'boss'"},
		{"roots", "parent=-", all + " AND TetherParent IS NULL"},
		{"turn exact", "turn=3", all + " AND TetherTurn = 3"},
		{"turn at least", "turn=%3E%3D+10", all + " AND TetherTurn >= 10"},
		{"prefix with a quote", "prefix=it's", all + ` AND WorkflowId STARTS_WITH 'it\'s'`},
		{"prefix with a backslash", `prefix=a\`, all + ` AND WorkflowId STARTS_WITH 'a\\'`},
		{"parent ending in a backslash", `parent=p\`, all + ` AND TetherParent = 'p\\'`},
		{"waiting for approval", "waiting=approval", all + " AND TetherWaiting = 'approval'"},
		{"waiting for anything", "waiting=any", all + " AND TetherWaiting IS NOT NULL"},
		{"wait ends by a local date-time", "until=2026-01-02T15:04",
			all + " AND TetherWaitUntil <= '2026-01-02T15:04:00Z'"},
		{"wait ends by an RFC 3339 time", "waiting=wait&until=2026-01-02T15:04:05%2B02:00",
			all + " AND TetherWaiting = 'wait' AND TetherWaitUntil <= '2026-01-02T13:04:05Z'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			require.NoError(t, err)
			got, err := filterFrom(q).Query()
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestFiltersRefuseWhatTheQueryCannotHold(t *testing.T) {
	for _, query := range []string{"status=sleeping", "turn=three", "turn=%3D%3D1", "model=a%0Ab",
		"waiting=sleep", "until=tomorrow", "until=2026-13-01T00:00"} {
		t.Run(query, func(t *testing.T) {
			q, err := url.ParseQuery(query)
			require.NoError(t, err)
			_, err = filterFrom(q).Query()
			require.ErrorIs(t, err, errBadInput)
		})
	}
}
