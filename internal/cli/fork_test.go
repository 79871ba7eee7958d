package cli

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

// lastIdle is the position of the log's last status/idle event: the turn
// boundary after its last turn.
func lastIdle(t *testing.T, out string) int64 {
	var log []eventlog.Envelope
	require.NoError(t, json.Unmarshal([]byte(out), &log))
	for i := len(log) - 1; i >= 0; i-- {
		e, err := eventlog.Decode(log[i])
		require.NoError(t, err)
		if st, ok := e.(eventlog.StatusChanged); ok && st.Status == eventlog.StatusIdle {
			return log[i].Seq
		}
	}
	t.Fatal("no idle status in the log")
	return -1
}

// starter fork makes an agent from another's log at a turn boundary, with
// the next prompt appended; starter diff shows the two from where they
// part; a position inside a turn is refused naming the nearest ones.
func TestStarterForksAnAgentAndDiffShowsWhereTheyPart(t *testing.T) {
	s := newServer(t)
	ctx := ctxT(t, 2*time.Minute)
	s.must(ctx, "start", "--id", "src", "--wait", "/say one")
	at := lastIdle(t, s.must(ctx, "log", "--json", "src").out)
	s.must(ctx, "followup", "src", "/say two")
	s.must(ctx, "wait", "src")

	r := s.must(ctx, "fork", "src", "--at", strconv.FormatInt(at, 10), "--id", "f1", "--append", "/say three")
	require.Equal(t, "f1\n", r.out)
	s.must(ctx, "wait", "f1")
	r = s.must(ctx, "log", "f1")
	require.Contains(t, r.out, "forked:      from src at position "+strconv.FormatInt(at, 10)+"\n")
	require.Contains(t, r.out, "three")

	r = s.must(ctx, "diff", "src", "f1")
	require.Contains(t, r.out, "f1 is a fork of src at position "+strconv.FormatInt(at, 10)+"\n")
	require.Contains(t, r.out, "the conversations are the same up to message 2 of 4 | 4; from there:\n")
	require.Regexp(t, `(?m)^  2 user: /say two +\| user: /say three$`, r.out)
	require.Regexp(t, `(?m)^  3 assistant: two +\| assistant: three$`, r.out)

	r = s.run(ctx, nil, "fork", "src", "--at", strconv.FormatInt(at+5, 10))
	require.Equal(t, 1, r.code)
	require.Contains(t, r.err, "cannot fork at "+strconv.FormatInt(at+5, 10)+": inside a step")
	require.Contains(t, r.err, "nearest positions that can: ")

	r = s.run(ctx, nil, "fork", "src")
	require.Equal(t, 2, r.code, r.err)
	require.Contains(t, r.err, "fork needs --at N")
}
