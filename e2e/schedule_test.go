package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
)

// A followup sent through the Go client for two seconds ahead waits on a
// durable timer, then opens a turn from the initiator "timer"; a message
// still scheduled when the agent is disposed is discarded. The history
// replays and projects, and joins the corpus.
func TestAScheduledFollowupOpensItsTurnFromTheTimer(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "scheduled", First: "/say hello"})
	require.NoError(t, err)
	waitIdle(ctx, t, h)

	_, err = h.Steer(ctx, "/say never", agent.At(time.Now().Add(time.Hour)), agent.WithMessageID("much-later"))
	require.NoError(t, err)
	waitFor(t, 30*time.Second, "the signalled schedule to be recorded", func() bool {
		st, err := h.Status(ctx)
		return err == nil && st.ScheduledLen == 1
	})
	at := time.Now().Add(2 * time.Second)
	ack, err := h.Followup(ctx, "/say on time", agent.At(at), agent.Acknowledged(), agent.WithMessageID("later"))
	require.NoError(t, err)
	st, err := h.Status(ctx)
	require.NoError(t, err)
	if time.Now().Before(at) { // on a slow machine the time may have come already
		require.Equal(t, 2, st.ScheduledLen)
		require.Equal(t, at.Truncate(time.Millisecond).UTC(), st.NextAt.Truncate(time.Millisecond).UTC())
		require.Equal(t, 1, st.Turn, "nothing opened before its time")
	}

	waitFor(t, 30*time.Second, "the scheduled followup's turn", func() bool {
		st, err := h.Status(ctx)
		return err == nil && st.Turn == 2 && st.Idle()
	})
	log := mustLog(t, h)
	var delivered eventlog.Envelope
	for _, env := range log {
		if env.Type == eventlog.TypeInboxInserted && env.Seq > ack.Seq {
			delivered = env
		}
	}
	require.NotZero(t, delivered.Seq, "delivered after it was scheduled (seq %d)", ack.Seq)
	ev, err := eventlog.Decode(delivered)
	require.NoError(t, err)
	ins := ev.(eventlog.InboxInserted)
	require.Equal(t, eventlog.MessageID("later"), ins.MessageID)
	require.Equal(t, &eventlog.Initiator{Kind: eventlog.ByTimer}, ins.From)
	require.False(t, delivered.At.Before(at.Truncate(time.Millisecond)), "not before its time: %s < %s", delivered.At, at)
	work := eventlog.ConsumedWork(events(t, log))
	require.Equal(t, eventlog.Outcome{List: eventlog.NextTurn, Progress: eventlog.ProgressDone, Turn: 2, TurnEnd: eventlog.EndCompleted},
		work["later"])

	require.NoError(t, h.Dispose(ctx, "done"))
	evs := requireReplaysAndProjects(ctx, t, e, h, "scheduled-message")
	discarded := ofType[eventlog.InboxDiscarded](evs)
	require.Len(t, discarded, 1)
	require.Equal(t, eventlog.MessageID("much-later"), discarded[0].MessageID)
	require.Equal(t, eventlog.DiscardDisposed, discarded[0].Outcome)
}

// A message scheduled before Continue-As-New arrives in the next run: the
// seed carries it and the new run arms its timer again; the chain's
// projection restores its content from the seed.
func TestAScheduledMessageArrivesAfterContinueAsNew(t *testing.T) {
	e := newEnv(t)
	e.cfg.MaxRunTurns = 1
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "scheduled-chain", First: "/say hello"})
	require.NoError(t, err)
	idleAcrossRuns(ctx, t, h)
	_, err = h.Followup(ctx, "/say from the next run", agent.At(time.Now().Add(3*time.Second)), agent.WithMessageID("later"),
		agent.Acknowledged())
	require.NoError(t, err)
	_, err = h.Followup(ctx, "/say now")
	require.NoError(t, err)

	waitFor(t, 30*time.Second, "the scheduled followup's turn", func() bool {
		st, err := h.Status(ctx)
		return err == nil && st.Turn == 3 && st.Idle()
	})
	st, err := h.Status(ctx)
	require.NoError(t, err)
	require.GreaterOrEqual(t, st.Runs, 3, "a switch after each turn")
	log := mustLog(t, h)
	evs := events(t, log)
	var from []*eventlog.Initiator
	for _, ins := range ofType[eventlog.InboxInserted](evs) {
		if ins.MessageID == "later" {
			from = append(from, ins.From)
		}
	}
	require.Equal(t, []*eventlog.Initiator{{Kind: eventlog.ByTimer}}, from)
	require.Equal(t, eventlog.ProgressDone, eventlog.ConsumedWork(evs)["later"].Progress)
	delivered := slices.IndexFunc(evs, func(ev eventlog.Event) bool {
		ins, ok := ev.(eventlog.InboxInserted)
		return ok && ins.MessageID == "later"
	})
	end2 := slices.IndexFunc(evs, func(ev eventlog.Event) bool { end, ok := ev.(eventlog.TurnEnd); return ok && end.Turn == 2 })
	require.Greater(t, delivered, end2, "delivered after turn 2, so in the run that followed it")

	runs, err := projection.FetchChain(ctx, e.c, h.ID)
	require.NoError(t, err)
	projected, err := projection.FromChain(runs...)
	require.NoError(t, err)
	requireSameLog(t, log, projected)
	record(t, "scheduled-across-runs-first-run", runs[1])
	record(t, "scheduled-across-runs-second-run", runs[2])
}

// The starter schedules with --in and --at: status lists what waits, the
// log shows it scheduled and then the turn its timer opened; a bad --at is
// a usage error.
func TestStarterSchedulesMessagesWithInAndAt(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	requireExit(t, e.starter(ctx, "start", "--id", "cli-later", "--tools", "echo", "--wait", "/say hello"), 0)

	far := time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
	r := e.starter(ctx, "followup", "--at", far, "--message-id", "far", "cli-later", "/say next month")
	requireExit(t, r, 0)
	r = e.starter(ctx, "followup", "--in", "2s", "--message-id", "soon", "cli-later", "/say on time")
	requireExit(t, r, 0)
	require.Equal(t, "soon\n", r.out)
	r = e.starter(ctx, "status", "cli-later")
	requireExit(t, r, 0)
	require.Contains(t, r.out, "  far  "+far+" (next-turn)  \"/say next month\"\n")

	waitFor(t, 30*time.Second, "the scheduled followup's turn", func() bool {
		r := e.starter(ctx, "status", "cli-later")
		return strings.Contains(r.out, "turn:      2\n") && strings.Contains(r.out, "status:    idle\n")
	})
	r = e.starter(ctx, "status", "cli-later")
	require.Contains(t, r.out, "scheduled: 1, next at "+far+"\n", "the one still waiting")
	r = e.starter(ctx, "log", "cli-later")
	requireExit(t, r, 0)
	require.Contains(t, r.out, "scheduled:   message far for "+far+" (next-turn): /say next month\n")
	require.Contains(t, r.out, "timer:       /say on time\n")

	r = e.starter(ctx, "steer", "--at", "soon", "cli-later", "hi")
	requireExit(t, r, 2)
	require.Contains(t, r.err, "--at is not an RFC 3339 time")
	r = e.starter(ctx, "steer", "--at", "2026-12-01T10:00:00Z", "--in", "1h", "cli-later", "hi")
	requireExit(t, r, 2)
	require.Contains(t, r.err, "--at and --in exclude each other")
}
