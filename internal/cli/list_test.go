package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ids is the ID column of an ls table, top to bottom.
func ids(table string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
		out = append(out, strings.Fields(line)[0])
	}
	return out
}

// eventually runs ls with args until its IDs are want (the visibility
// store is eventually consistent).
func (s *server) eventually(t *testing.T, want []string, args ...string) {
	t.Helper()
	ctx := ctxT(t, 30*time.Second)
	var got []string
	require.Eventually(t, func() bool {
		got = ids(s.must(ctx, append([]string{"ls"}, args...)...).out)
		return strings.Join(got, " ") == strings.Join(want, " ")
	}, 20*time.Second, 100*time.Millisecond, "ls %v: want %v, got %v", args, want, &got)
}

// --parent - lists the agents without a parent, as the console's "-".
func TestLsParentDashListsRootAgents(t *testing.T) {
	s := newServer(t)
	ctx := ctxT(t, time.Minute)
	s.must(ctx, "start", "--id", "root", "--tools", "spawn_agent", "--wait", "/say hi")
	child := strings.TrimSpace(s.must(ctx, "spawn", "root", "/say child here").out)
	require.True(t, strings.HasPrefix(child, "root.child-"), child)
	s.eventually(t, []string{child}, "--parent", "root")
	s.eventually(t, []string{"root"}, "--parent", "-")
}

// With --all, closed agents are listed among open ones by start time,
// newest first: the store alone puts every open one first.
func TestLsAllIsNewestFirstAcrossOpenAndClosedAgents(t *testing.T) {
	s := newServer(t)
	ctx := ctxT(t, time.Minute)
	s.must(ctx, "start", "--id", "older-open", "--wait", "/say hi")
	s.must(ctx, "start", "--id", "newer-closed", "--wait", "/say hi")
	s.must(ctx, "dispose", "newer-closed")
	s.eventually(t, []string{"newer-closed", "older-open"}, "--all")
	s.eventually(t, []string{"older-open"})
}
