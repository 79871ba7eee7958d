package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// An agent whose worker refuses its options fails in its first workflow
// task: start without --wait says so and exits 1, not 0.
func TestStartWithAToolTheWorkerLacksFailsWithoutWait(t *testing.T) {
	s := newServer(t)
	ctx := ctxT(t, time.Minute)
	r := s.run(ctx, nil, "start", "--id", "t1", "--tools", "nosuchtool", "hi")
	require.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.out, r.err)
	require.Equal(t, "t1\n", r.out)
	require.Equal(t, `starter: agent t1 ended in its first workflow task (failed): agent options are invalid: tool "nosuchtool" is not offered by this worker`+"\n", r.err)

	r = s.must(ctx, "start", "--id", "t2", "/say hello")
	require.Equal(t, "t2\n", r.out)
	require.Empty(t, r.err)
}

// A disposed agent's ID is never reused: start says it was used by an
// agent that ended and how to go on; an open one's says it is open.
func TestStartOnAUsedIDSaysWhoUsesItAndHowToGoOn(t *testing.T) {
	s := newServer(t)
	ctx := ctxT(t, time.Minute)
	s.must(ctx, "start", "--id", "a1", "--wait", "/say hi")
	r := s.run(ctx, nil, "start", "--id", "a1", "again")
	require.Equal(t, 1, r.code)
	require.Equal(t, "starter: agent already exists: a1 (it is open: send it a message with starter followup a1 MESSAGE)\n", r.err)

	r = s.must(ctx, "dispose", "a1")
	require.Equal(t, "a1 disposed (disposed by starter)\n", r.out)
	r = s.run(ctx, nil, "start", "--id", "a1", "again")
	require.Equal(t, 1, r.code)
	require.Equal(t, "starter: agent ID a1 was used by an agent that has ended (disposed), and an ID is never reused: "+
		"start with another --id, or read the old one with starter log a1\n", r.err)
}

func TestCancelOfAnIdleAgentSaysThereWasNothingToCancel(t *testing.T) {
	s := newServer(t)
	ctx := ctxT(t, time.Minute)
	s.must(ctx, "start", "--id", "c1", "--wait", "/say hi")
	r := s.must(ctx, "cancel", "c1")
	require.Equal(t, "c1 was idle: no turn to cancel\n", r.out)
}

// A message over the shell's argument limit (128 KiB) arrives whole from a
// file or from standard input.
func TestFollowupReadsALongMessageFromAFileOrStandardInput(t *testing.T) {
	s := newServer(t)
	ctx := ctxT(t, time.Minute)
	s.must(ctx, "start", "--id", "f1", "--wait", "/say hi")
	long := "/say " + strings.Repeat("word ", 40<<10) // 200 KiB
	path := t.TempDir() + "/m.txt"
	require.NoError(t, os.WriteFile(path, []byte(long), 0o600))

	r := s.must(ctx, "followup", "--file", path, "f1")
	require.Regexp(t, fmt.Sprintf(`^[0-9A-Za-z]{%d}\n$`, signals.DrawnIDLen), r.out, "the drawn message ID")
	r = s.run(ctx, strings.NewReader(long+"again"), "inject", "f1", "-")
	require.Equal(t, 0, r.code, r.err)
	s.must(ctx, "wait", "f1")
	r = s.must(ctx, "log", "--json", "f1")
	var log []eventlog.Envelope
	require.NoError(t, json.Unmarshal([]byte(r.out), &log))
	evs, err := eventlog.DecodeAll(log)
	require.NoError(t, err)
	var got []string
	for _, ev := range evs {
		if in, ok := ev.(eventlog.InboxInserted); ok {
			got = append(got, in.Content)
		}
	}
	require.Equal(t, []string{"/say hi", long, long + "again"}, got, "each message whole")
}

// A decision for a call that waits for none says so once.
func TestDenyOfACallThatWaitsForNothingSaysSoOnce(t *testing.T) {
	s := newServer(t)
	ctx := ctxT(t, time.Minute)
	s.must(ctx, "start", "--id", "d1", "--wait", "/say hi")
	r := s.run(ctx, nil, "deny", "d1", "nosuchcall", "--reason", "no")
	require.Equal(t, 1, r.code)
	require.Equal(t, 1, strings.Count(r.err, "no tool call waits for that decision"), r.err)
}

func TestCompactSaysWhenTheContextDidNotShrink(t *testing.T) {
	var out strings.Builder
	e := env{s: Starter{Out: &out}}
	printCompacted(e, signals.Maintained{Before: 900, After: 120})
	printCompacted(e, signals.Maintained{Before: 48, After: 48})
	printCompacted(e, signals.Maintained{Before: 48, After: 51})
	require.Equal(t, "compacted: ~900 → ~120 tokens\n"+
		"nothing compacted: the context stays ~48 tokens (too little to prune or summarise)\n"+
		"the context did not shrink: ~48 → ~51 tokens\n", out.String())
}
