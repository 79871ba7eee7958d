package loop

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// source drives an agent through three turns: a plain answer, a turn
// whose first step calls tool t (so it has a step boundary), and another
// plain answer. It returns the driver and, per model call, the log
// position the call was made at and the conversation it was made with.
func forkSource(t *testing.T, opts signals.AgentOptions) (*driver, []sourceCall) {
	d := newDriver(t, opts)
	var made []sourceCall
	model := func(out signals.ModelOutput) {
		t.Helper()
		made = append(made, sourceCall{at: d.l.State().Len - 1, conv: conversationOf(t, d.l)})
		d.answerModel(out)
	}
	d.followup("f1")
	d.resume()
	model(answer("one"))
	d.followup("f2")
	d.resume()
	model(calls("t"))
	d.finishTool("c0", "tool said so")
	model(answer("two"))
	d.followup("f3")
	d.resume()
	model(answer("three"))
	d.requireOK()
	return d, made
}

type sourceCall struct {
	at   int64
	conv []eventlog.Message
}

func conversationOf(t *testing.T, l *Loop) []eventlog.Message {
	t.Helper()
	conv, err := l.conversation()
	require.NoError(t, err)
	return conv.Messages()
}

func logOf(d *driver) []eventlog.Envelope {
	return d.l.Page(signals.LogRequest{Limit: signals.DefaultLogPage}).Events
}

// restoreFork seeds a fork from the source's log at `at` and returns its
// driver.
func restoreFork(t *testing.T, d *driver, opts signals.AgentOptions, f eventlog.SessionForked) (*driver, signals.Seed) {
	t.Helper()
	seed, err := ForkSeed(FreshPrefix(opts, logOf(d)), f)
	require.NoError(t, err)
	return &driver{t: t, l: Restore(Config{AgentID: "fork", Options: opts}, seed), now: d.now}, seed
}

// positionsOf lists the seqs of the events of type typ.
func positionsOf(log []eventlog.Envelope, typ eventlog.Type) []int64 {
	var out []int64
	for _, env := range log {
		if env.Type == typ {
			out = append(out, env.Seq)
		}
	}
	return out
}

func TestAForkAtEachTurnBoundarySendsTheSourcesNextRequest(t *testing.T) {
	opts := signals.AgentOptions{SystemPrompt: "sys", Tools: []string{"t"}}
	d, made := forkSource(t, opts)
	log := logOf(d)
	idle := positionsOf(log, eventlog.TypeStatus)
	points, err := ForkPoints(FreshPrefix(opts, log))
	require.NoError(t, err)
	// Turn 1 ends idle; turn 2 asks for tools and ends idle; turn 3 ends idle.
	for i, f := range []string{"f2", "f3"} {
		at := idle[2*i+1] // status running, then idle, per turn
		require.Contains(t, points, at)
		fork, seed := restoreFork(t, d, opts, eventlog.SessionForked{Source: "a1", At: at})
		require.Nil(t, seed.Turn, "a turn boundary carries no open turn")
		require.Equal(t, d.l.State().Selection, seed.Selection)
		fork.followup(f)
		fork.resume()
		call := take[CallModel](fork)
		next := made[2*i+1] // the first call of the turn that claimed f
		require.Equal(t, next.conv, conversationOf(t, fork.l), "the fork's request is the source's at that point")
		require.Equal(t, at+1, call.Input.Journal.From, "the fork's log goes on after the prefix")
		first, err := eventlog.Decode(fork.l.Page(signals.LogRequest{From: at + 1}).Events[0])
		require.NoError(t, err)
		require.Equal(t, eventlog.SessionForked{Source: "a1", At: at}, first, "session/forked comes first")
		fork.requireOK()
	}
}

func TestAForkAtAStepBoundaryTakesTheNextStepAndRunsNoToolAgain(t *testing.T) {
	opts := signals.AgentOptions{SystemPrompt: "sys", Tools: []string{"t"}}
	d, made := forkSource(t, opts)
	log := logOf(d)
	at := positionsOf(log, eventlog.TypeStepEnd)[1] // turn 2's first step: the tool step
	fork, seed := restoreFork(t, d, opts, eventlog.SessionForked{Source: "a1", At: at})
	require.NotNil(t, seed.Turn)
	require.True(t, seed.State.InTurn)
	require.Empty(t, seed.State.OpenCalls)
	fork.resume()
	require.Len(t, inFlight[CallModel](fork), 1)
	require.Empty(t, seen[StartTool](fork), "the call before the fork point is not run again")
	require.Equal(t, made[2].conv, conversationOf(t, fork.l), "the second step's request, with the tool's result")
	fork.answerModel(answer("two, again"))
	require.False(t, fork.l.State().InTurn, "the turn goes on and ends in the fork")
	fork.requireOK()
}

func TestAForkIsRefusedWhereItWouldTearAStepAndNamesTheNearestPositions(t *testing.T) {
	opts := signals.AgentOptions{SystemPrompt: "sys", Tools: []string{"t"}}
	d, _ := forkSource(t, opts)
	log := logOf(d)
	call := positionsOf(log, eventlog.TypeToolCall)[0] // the tool runs: its call is open
	points, err := ForkPoints(FreshPrefix(opts, log))
	require.NoError(t, err)
	var before, after int64 = -1, -1
	for _, p := range points {
		if p < call {
			before = p
		} else if after < 0 {
			after = p
		}
	}
	_, err = ForkSeed(FreshPrefix(opts, log), eventlog.SessionForked{Source: "a1", At: call})
	var pe *ForkPositionError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, ForkPositionError{At: call, Before: before, After: after, Why: pe.Why}, *pe)
	require.Contains(t, pe.Why, "inside a step")
	require.Less(t, before, call)
	require.Greater(t, after, call)

	stopping := positionsOf(log, eventlog.TypeStepEnd)[0] // turn 1's only step answered: the turn stops
	_, err = ForkSeed(FreshPrefix(opts, log), eventlog.SessionForked{Source: "a1", At: stopping})
	require.ErrorAs(t, err, &pe)
	require.Contains(t, pe.Why, "stopping")

	_, err = ForkSeed(FreshPrefix(opts, log), eventlog.SessionForked{Source: "a1", At: int64(len(log))})
	require.ErrorContains(t, err, "this log holds positions 0 to")
}

func TestAForkIsRefusedWhileAnApprovalIsPending(t *testing.T) {
	opts := signals.AgentOptions{Approval: &signals.ApprovalPolicy{Tools: []string{"t"}}}
	d := parentDriver(t, opts)
	d.followup("f1")
	d.resume()
	d.answerModel(call("t", `{}`))
	require.Len(t, d.l.State().Pending, 1)
	log := logOf(d)
	_, err := ForkSeed(FreshPrefix(d.l.cfg.Options, log), eventlog.SessionForked{Source: "a1", At: int64(len(log)) - 1})
	var pe *ForkPositionError
	require.ErrorAs(t, err, &pe)
	require.Contains(t, pe.Why, "inside a step")
	require.Equal(t, int64(-1), pe.After, "nothing after it can be forked yet")
	require.GreaterOrEqual(t, pe.Before, int64(0))
}

func TestAForkDropsWhatWasScheduledOrPendingAndArmsNoTimer(t *testing.T) {
	opts := signals.AgentOptions{}
	d := newDriver(t, opts)
	d.followup("f1")
	d.resume()
	d.answerModel(answer("one"))
	require.NoError(t, d.schedule("later", eventlog.NextTurn, t0.Add(time.Hour)).Err)
	require.NoError(t, d.step(Accept{Message: msg("quiet"), List: eventlog.NextTurn}).Err) // no wake: it waits
	log := logOf(d)
	at := int64(len(log)) - 1
	fork, seed := restoreFork(t, d, opts, eventlog.SessionForked{Source: "a1", At: at})
	require.Equal(t, []eventlog.MessageID{"quiet", "later"}, seed.Fork.Dropped)
	require.Empty(t, seed.State.Scheduled)
	require.Zero(t, seed.State.Inbox.Len())
	fork.resume()
	require.Empty(t, seen[StartTimer](fork), "the source's scheduled message does not follow the fork")
	require.Empty(t, seen[CallModel](fork), "nor does its pending message")
	first, err := eventlog.Decode(fork.l.Page(signals.LogRequest{From: at + 1}).Events[0])
	require.NoError(t, err)
	require.Equal(t, []eventlog.MessageID{"quiet", "later"}, first.(eventlog.SessionForked).Dropped)
	fork.requireOK()
}

func TestAForkCanReplaceTheLastUserMessage(t *testing.T) {
	opts := signals.AgentOptions{SystemPrompt: "sys"}
	d := newDriver(t, opts)
	d.followup("f1")
	d.resume()
	d.answerModel(answer("one"))
	log := logOf(d)
	at := int64(len(log)) - 1
	fork, seed := restoreFork(t, d, opts, eventlog.SessionForked{Source: "a1", At: at, ReplacedLast: "edited"})
	require.Equal(t, "content f1", seed.Fork.Replaced)
	fork.followup("f2")
	fork.resume()
	take[CallModel](fork)
	conv := conversationOf(t, fork.l)
	require.Equal(t, []eventlog.Message{{Role: eventlog.RoleSystem, Content: "sys"}, {Role: eventlog.RoleUser, Content: "edited"},
		{Role: eventlog.RoleAssistant, Content: "one"}, {Role: eventlog.RoleUser, Content: "content f2"}}, conv)

	_, err := ForkSeed(FreshPrefix(opts, nil), eventlog.SessionForked{Source: "a1", At: 0})
	require.Error(t, err, "an empty log has no position")
}

// A fork of a fork reads its source's seed as the start of its own log.
func TestAForkOfAForkStartsFromTheFirstForksSeed(t *testing.T) {
	opts := signals.AgentOptions{SystemPrompt: "sys", Tools: []string{"t"}}
	d, made := forkSource(t, opts)
	log := logOf(d)
	at := positionsOf(log, eventlog.TypeStatus)[1] // after turn 1
	fork, seed := restoreFork(t, d, opts, eventlog.SessionForked{Source: "a1", At: at})
	fork.followup("f2")
	fork.resume()
	fork.answerModel(answer("other"))
	own := fork.l.Page(signals.LogRequest{From: at + 1}).Events
	require.Equal(t, at+1, own[0].Seq)
	prefix := Prefix{State: seed.State, Context: seed.Context, Events: own}
	_, err := ForkSeed(prefix, eventlog.SessionForked{Source: "fork", At: at})
	require.ErrorContains(t, err, "this log holds positions", "what precedes the fork is its source's")
	second, err := ForkSeed(prefix, eventlog.SessionForked{Source: "fork", At: own[len(own)-1].Seq})
	require.NoError(t, err)
	next := &driver{t: t, l: Restore(Config{AgentID: "fork2", Options: opts}, second), now: fork.now}
	next.followup("f3")
	next.resume()
	take[CallModel](next)
	conv := conversationOf(t, next.l)
	require.Equal(t, made[1].conv[:3], conv[:3], "the source's first turn")
	require.Equal(t, eventlog.Message{Role: eventlog.RoleAssistant, Content: "other"}, conv[4], "then the fork's")
	next.requireOK()
}

// Children are not forked. At a turn boundary of a parent with a detached
// child, the fork's seed has no children: a report from the source's
// child is not the fork's (dropped, nothing woken) and the fork's dispose
// signals no child; the source still has its child. While a child the
// parent waits for runs, its spawn call has no result: no fork there.
func TestAForkHasNoneOfItsSourcesChildren(t *testing.T) {
	opts := signals.AgentOptions{}
	d := parentDriver(t, opts)
	opts = d.l.Options()
	d.followup("f1")
	d.resume()
	d.answerModel(call(signals.SpawnTool, `{"task":"watch the queue","mode":"detach"}`))
	start := take[StartChild](d)
	d.step(ChildStart{ChildID: start.ChildID})
	d.answerModel(answer("will report"))
	require.Len(t, d.l.State().Children, 1)
	at := d.l.State().Len - 1

	fork, seed := restoreFork(t, d, opts, eventlog.SessionForked{Source: "a1", At: at})
	require.Empty(t, seed.State.Children)
	fork.resume()
	inserted := len(only[eventlog.InboxInserted](fork.events()))
	rd := fork.step(report(start.ChildID, 1, eventlog.EndCompleted, "queue is fine", 100))
	require.Empty(t, rd.Commands, "the source's child reports to the source, not the fork")
	require.False(t, fork.l.State().InTurn)
	require.Len(t, only[eventlog.InboxInserted](fork.events()), inserted)
	fork.step(Dispose{Cause: "bye"})
	require.Empty(t, seen[SignalChild](fork), "disposing the fork leaves the source's child alone")
	fork.requireOK()
	require.Len(t, d.l.State().Children, 1, "the source keeps its child")

	// A child the parent waits for holds its spawn call open.
	w := parentDriver(t, signals.AgentOptions{})
	w.followup("f1")
	w.resume()
	w.answerModel(call(signals.SpawnTool, `{"task":"count the files"}`))
	wstart := take[StartChild](w)
	w.step(ChildStart{ChildID: wstart.ChildID})
	_, err := ForkSeed(FreshPrefix(w.l.Options(), logOf(w)), eventlog.SessionForked{Source: "a1", At: w.l.State().Len - 1})
	var pe *ForkPositionError
	require.ErrorAs(t, err, &pe, "no fork while the spawn call waits for its child")
	require.Contains(t, pe.Why, "call")
}
