package cli

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
)

// ls --builds says in one line how many agents each build drives, the
// current builds marked, a versioned build under its deployment.
func TestBuildCountsReadAsOneLine(t *testing.T) {
	for _, tc := range []struct {
		counts []agent.BuildCount
		want   string
	}{
		{nil, "no agents"},
		{[]agent.BuildCount{{Build: "a1", Agents: 1, Current: true}}, "1 agent on a1 (current)"},
		{[]agent.BuildCount{{Build: "a1", Agents: 3, Current: true}, {Build: "9f", Agents: 2}, {Agents: 1}},
			"3 agents on a1 (current), 2 on 9f, 1 that no worker has run yet"},
		{[]agent.BuildCount{{Build: "b2", Deployment: "tether", Agents: 2}}, "2 agents on tether:b2"},
	} {
		require.Equal(t, tc.want, buildCounts(tc.counts))
	}
}

// --build any shows every agent's build; --build ID keeps ID's; --builds
// counts; a build no build ID can be is a usage error.
func TestLsBuildFlags(t *testing.T) {
	o, counts, err := parseList([]string{"--build", "any"})
	require.NoError(t, err)
	require.True(t, o.WithBuild)
	require.Empty(t, o.Build)
	require.False(t, counts)
	o, counts, err = parseList([]string{"--build", "1a2b", "--builds"})
	require.NoError(t, err)
	require.Equal(t, "1a2b", o.Build)
	require.True(t, counts)
	o, _, err = parseList(nil)
	require.NoError(t, err)
	require.False(t, o.WithBuild, "no describe per agent unless asked")
	for _, bad := range []string{"a b", "x\ny", ""} {
		_, _, err = parseList([]string{"--build", bad})
		if bad == "" {
			require.NoError(t, err, "an empty --build is no filter")
			continue
		}
		require.ErrorIs(t, err, ErrUsage)
		require.ErrorContains(t, err, "--build")
	}
}
