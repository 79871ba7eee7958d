package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// startBuild starts the env's worker as build id (the recorded build ID
// workerfx sets from the binary).
func (e *env) startBuild(id string) worker.Worker {
	e.t.Helper()
	//lint:ignore SA1019 the field workerfx sets: the build ID alone, unversioned
	e.workerOptions.BuildID = id
	return e.startWorker()
}

// builds lists the agents with their builds, by ID.
func (e *env) builds(t *testing.T, ctx context.Context, o agent.ListOptions) map[string]string {
	t.Helper()
	o.WithBuild = true
	got, _, err := e.agents.List(ctx, o)
	require.NoError(t, err)
	out := map[string]string{}
	for _, a := range got {
		out[a.ID] = a.Build
	}
	return out
}

// An operator sees which build drives each agent: the build that completed
// its run's last workflow task, so after a plain (unversioned) deploy the
// agents the new build has run read the new build and the rest the old
// one; ls filters by build and counts the agents of each, marking the
// builds whose workers poll now. A build's ID filter that no build can
// have is a usage error.
func TestOperatorsSeeWhichBuildDrivesEachAgentAndHowManyAreLeftOnAnOldOne(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, 2*time.Minute)
	const old, next = "0ld0ld0ld0ld", "9e79e79e79e7"
	w := e.startBuild(old)
	var hs []*agent.Handle
	for _, id := range []string{"b1", "b2", "b3"} {
		h, err := e.agents.Create(ctx, agent.CreateOptions{ID: id, Options: signals.AgentOptions{Provider: "scripted"}, First: "/say hi"})
		require.NoError(t, err)
		_, err = h.WaitIdle(ctx)
		require.NoError(t, err)
		hs = append(hs, h)
	}
	require.Eventually(t, func() bool {
		return sameMap(e.builds(t, ctx, agent.ListOptions{}), map[string]string{"b1": old, "b2": old, "b3": old})
	}, 20*time.Second, 50*time.Millisecond)
	counts, err := e.agents.Builds(ctx, agent.ListOptions{})
	require.NoError(t, err)
	require.Equal(t, []agent.BuildCount{{Build: old, Agents: 3, Current: true}}, counts)

	// The deploy: the old worker stops, the new one starts, and one agent
	// takes a turn on it.
	w.Stop()
	e.startBuild(next)
	_, err = hs[0].Followup(ctx, "/say again")
	require.NoError(t, err)
	_, err = hs[0].WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"b1": next, "b2": old, "b3": old}, e.builds(t, ctx, agent.ListOptions{}))
	require.Equal(t, map[string]string{"b2": old, "b3": old}, e.builds(t, ctx, agent.ListOptions{Build: old}))
	require.Equal(t, map[string]string{"b1": next}, e.builds(t, ctx, agent.ListOptions{Build: next}))
	require.Empty(t, e.builds(t, ctx, agent.ListOptions{Build: "nosuchbuild"}))
	counts, err = e.agents.Builds(ctx, agent.ListOptions{})
	require.NoError(t, err)
	require.Equal(t, []agent.BuildCount{{Build: old, Agents: 2}, {Build: next, Agents: 1, Current: true}}, counts)

	// An agent on a queue no worker polls has no build yet.
	_, err = agent.New(e.c, "nobody-polls").Create(ctx, agent.CreateOptions{ID: "b-none", First: "/say hi"})
	require.NoError(t, err)

	// The starter: a BUILD column, a build's agents, the counts.
	var r starterResult
	require.Eventually(t, func() bool {
		r = e.starter(ctx, "ls", "--build", "any")
		return r.code == 0 && strings.Count(r.out, "\n") == 5
	}, 20*time.Second, 50*time.Millisecond)
	rows := strings.Split(strings.TrimRight(r.out, "\n"), "\n")
	require.Regexp(t, `^ID +STATUS +MODEL +TURN +PARENT +WAITING +STARTED +BUILD$`, rows[0])
	slices.Sort(rows[1:])
	require.Regexp(t, `^b-none +starting .* -$`, rows[1])
	require.Regexp(t, `^b1 +idle .* `+next+`$`, rows[2])
	require.Regexp(t, `^b2 +idle .* `+old+`$`, rows[3])
	r = e.starter(ctx, "ls", "--build", old)
	requireExit(t, r, 0)
	require.Equal(t, 3, strings.Count(r.out, "\n"), r.out)
	require.NotContains(t, r.out, "b1 ")
	r = e.starter(ctx, "ls", "--builds")
	requireExit(t, r, 0)
	require.Equal(t, "2 agents on "+old+", 1 on "+next+" (current), 1 that no worker has run yet\n", r.out)
	r = e.starter(ctx, "ls", "--builds", "--build", next)
	requireExit(t, r, 0)
	require.Equal(t, "1 agent on "+next+" (current)\n", r.out)
	r = e.starter(ctx, "ls", "--builds", "--status", "running")
	requireExit(t, r, 0)
	require.Equal(t, "no agents\n", r.out)
	for _, bad := range []string{"a b", "x'y\n", strings.Repeat("f", 256)} {
		r = e.starter(ctx, "ls", "--build", bad)
		requireExit(t, r, 2)
		require.Contains(t, r.err, "--build")
		require.Equal(t, 1, strings.Count(r.err, "\n"), "one line: %q", r.err)
	}
}

// sameMap reports whether got equals want.
func sameMap(got, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}
