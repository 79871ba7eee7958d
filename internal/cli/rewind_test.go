package cli

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// starter rewind brings an idle agent back to the end of a turn: the next
// followup answers from there, the log keeps the turn rewound past and
// says so; a repeat records nothing; a turn rewound past, a turn that has
// not ended and a missing --to-turn are refused, each saying why.
func TestStarterRewindsAnAgentToATurnAndRefusesWhatItCannot(t *testing.T) {
	s := newServer(t)
	ctx := ctxT(t, 2*time.Minute)
	s.must(ctx, "start", "--id", "rw", "--wait", "/say one")
	s.must(ctx, "followup", "rw", "/say two")
	s.must(ctx, "wait", "rw")

	r := s.must(ctx, "rewind", "rw", "--to-turn", "1", "--by", "ops")
	require.Regexp(t, `^rw rewound to the end of turn 1 \(turn 2 stays in its log, rewound past\); the conversation keeps \d+ messages\n$`, r.out)
	r = s.must(ctx, "rewind", "rw", "--to-turn", "1")
	require.Equal(t, "rw already stands at the end of turn 1: nothing recorded\n", r.out)

	r = s.run(ctx, nil, "rewind", "rw", "--to-turn", "2")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.err, "turn 2: it was rewound past")
	require.Contains(t, r.err, "starter fork ID --at N")
	r = s.run(ctx, nil, "rewind", "rw", "--to-turn", "9")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.err, "turn 9 has not ended")
	r = s.run(ctx, nil, "rewind", "rw")
	require.Equal(t, 2, r.code, r.err)
	require.Contains(t, r.err, "rewind needs --to-turn K")
	r = s.run(ctx, nil, "rewind", "rw", "--to-turn", "x")
	require.Equal(t, 2, r.code, r.err)

	s.must(ctx, "followup", "rw", "/say three")
	s.must(ctx, "wait", "rw")
	r = s.must(ctx, "log", "rw")
	require.Contains(t, r.out, "── turn 2 (rewound past) ──")
	require.Contains(t, r.out, "rewound:     to the end of turn 1 by ops; turn 2 rewound past, the conversation goes on from turn 1\n")
	require.Contains(t, r.out, "── turn 3 ──")
	require.Contains(t, r.out, "three")
}
