package cli

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// With no worker on the agent's task queue, start says the agent waits
// for one and status and log read the agent's history, each with one line
// that names the agent and the queue, within seconds.
func TestWithoutAWorkerCommandsSaySoWithinSecondsAndReadHistory(t *testing.T) {
	s := newBareServer(t)
	ctx := ctxT(t, time.Minute)
	begin := time.Now()
	r := s.must(ctx, "start", "--id", "lonely", "hi")
	require.Equal(t, "lonely\n", r.out)
	require.Contains(t, r.err, "starter: agent lonely is started, but no worker has answered for it yet on task queue tether (")
	require.Contains(t, r.err, "it runs once one polls the queue\n")

	r = s.must(ctx, "status", "lonely")
	require.Contains(t, r.out, "turn:      0\n")
	require.Contains(t, r.err, `no worker has polled task queue "tether" of agent lonely`)
	require.Contains(t, r.err, "(read from the agent's history instead)")

	r = s.must(ctx, "log", "--json", "lonely")
	require.Equal(t, "[]\n", r.out, "no workflow task has run: an empty log")
	require.Contains(t, r.err, "(read from the agent's history instead)")
	require.Less(t, time.Since(begin), 40*time.Second)
}

// An agent that failed reads failed in status, with why, and its last
// state, as ls and tree say it; not an error.
func TestStatusOfAFailedAgentSaysFailedAndWhy(t *testing.T) {
	s := newServer(t)
	ctx := ctxT(t, time.Minute)
	r := s.run(ctx, nil, "start", "--id", "broken", "--tools", "nosuchtool", "hi")
	require.Equal(t, 1, r.code, r.err)
	r = s.must(ctx, "status", "broken")
	require.Regexp(t, `status:    failed \(agent options are invalid: .*nosuchtool`, r.out)
	s.eventually(t, []string{"broken"}, "--all")
	require.Regexp(t, `(?m)^broken\s+failed\s`, s.must(ctx, "ls", "--all").out)
	require.Regexp(t, `(?m)^broken  failed`, s.must(ctx, "tree", "broken").out)
}
