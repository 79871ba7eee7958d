package loop

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Issue 19's promises against the pure loop: nothing a client sends fails
// a run, and a tree counts what every child spent whatever order its
// reports arrive in.

// A message still pending is a duplicate however many IDs were accepted
// since: the recent window forgets old IDs, never what the inbox holds.
// Before, the resend passed Check and the fold refused it: the run failed.
func TestAResendOfAPendingMessageIsADuplicateAfterAnyNumberOfOthers(t *testing.T) {
	for _, how := range []string{"pending", "scheduled"} {
		t.Run(how, func(t *testing.T) {
			d := newDriver(t, signals.AgentOptions{})
			keep := Accept{Message: msg("keep-me"), List: eventlog.NextStep}
			if how == "scheduled" {
				keep.At = d.now.Add(signals.MaxScheduleAhead / 2)
			}
			require.NoError(t, d.step(keep).Err)
			for i := range MaxRecentIDs + 1 {
				require.NoError(t, d.step(Accept{Message: msg(fmt.Sprintf("other-%d", i)), List: eventlog.NextStep}).Err)
			}
			require.ErrorIs(t, d.l.Check(msg("keep-me")), signals.ErrDuplicateID, "the validator refuses it")
			for _, list := range []eventlog.List{eventlog.NextStep, eventlog.NextTurn} {
				rd := d.step(Accept{Message: msg("keep-me"), List: list, Wake: true})
				require.ErrorIs(t, rd.Err, signals.ErrDuplicateID, "a raw signal is refused the same way")
				require.Empty(t, rd.Recorded)
				require.Empty(t, rd.Commands, "no Fail")
			}
			d.requireOK()
		})
	}
}

// A scheduled message is remembered from its delivery too: a resend after
// its time came, and after its turn claimed it, is a duplicate however many
// IDs were accepted between its scheduling and its delivery.
func TestAScheduledMessageIsADuplicateAfterItsDelivery(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.step(Accept{Message: msg("later"), List: eventlog.NextTurn, Wake: true, At: d.now.Add(signals.MaxScheduleAhead / 2)})
	for i := range MaxRecentIDs + 1 {
		d.step(Accept{Message: msg(fmt.Sprintf("other-%d", i)), List: eventlog.NextStep})
	}
	d.step(TimerFired{ID: signals.ScheduleTimer("later")}) // delivered; it wakes a turn that claims it
	d.answerModel(answer("done"))
	require.False(t, d.l.State().InTurn)
	require.False(t, d.l.State().Holds("later"), "claimed: only the window remembers it")
	require.ErrorIs(t, d.l.Check(msg("later")), signals.ErrDuplicateID)
	d.requireOK()
}

// A request whose event the fold refuses is refused, never the run's
// failure: here an InboxInserted the state cannot take (its ID is pending,
// and the recent window was emptied as a seed from another build could).
func TestARequestTheFoldRefusesIsARejection(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.step(Accept{Message: msg("m"), List: eventlog.NextStep})
	d.l.recent = newIDs()
	rd := d.l.Step(d.now, Accept{Message: msg("m"), List: eventlog.NextStep})
	require.Error(t, rd.Err)
	require.Empty(t, rd.Recorded)
	require.Empty(t, rd.Commands)
	d.requireOK()
}

// A detached child disposed mid-turn sends the report of that turn and
// then its end; Temporal may deliver them in either order. The parent
// counts every token either way and records the turn once when the report
// comes first.
func TestAChildsEndCountsWhatItsReportsDidNot(t *testing.T) {
	for _, endFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("end first %t", endFirst), func(t *testing.T) {
			d := parentDriver(t, signals.AgentOptions{Budget: &signals.Budget{MaxTokens: 1000}})
			d.followup("f1")
			d.resume()
			d.answerModel(call(signals.SpawnTool, `{"task":"watch","mode":"detach"}`))
			start := take[StartChild](d)
			d.step(ChildStart{ChildID: start.ChildID})
			d.answerModel(answer("will report"))
			d.step(report(start.ChildID, 1, eventlog.EndCompleted, "first", 26))
			d.answerModel(answer("noted"))

			last := report(start.ChildID, 2, eventlog.EndCanceled, "", 104)
			end := ChildReport{Report: signals.ChildReport{ID: signals.ChildReportID(start.ChildID, 0), Child: start.ChildID,
				Spent: eventlog.Usage{InputTokens: 104}, Ended: "disposed: by the operator"}}
			if endFirst {
				d.step(end)
				d.step(last)
			} else {
				d.step(last)
				d.step(end)
			}
			require.Equal(t, int64(104), d.l.State().Usage.InputTokens, "the tree spent 104")
			settled := only[eventlog.ChildSettled](d.events())
			if endFirst {
				require.Len(t, settled, 1, "the late report is not recorded: the end counted it")
			} else {
				require.Len(t, settled, 2)
				require.Equal(t, eventlog.EndCanceled, settled[1].Reason)
			}
			require.Empty(t, d.l.State().Children)
			d.requireOK()
		})
	}
}

// A child that closes with no end report (its workflow failed or was
// terminated) is counted from its result when the shell has one.
func TestAChildsCloseCountsWhatItsResultSaysItSpent(t *testing.T) {
	d := parentDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.answerModel(call(signals.SpawnTool, `{"task":"count"}`))
	start := take[StartChild](d)
	d.step(ChildStart{ChildID: start.ChildID})
	d.step(ChildClosed{ChildID: start.ChildID, Status: "failed", Spent: eventlog.Usage{InputTokens: 50, OutputTokens: 7}})
	u := d.l.State().Usage
	require.Equal(t, int64(57), u.InputTokens+u.OutputTokens)
	res := only[eventlog.ToolResult](d.events())[0]
	require.True(t, res.IsError)
	d.requireOK()
}

// A run whose rules this build does not follow (recorded before the
// baseline, or by a newer build) fails at its first step with a clear
// error instead of replaying under other rules.
func TestRulesOutsideBaselineToLatestFailTheRun(t *testing.T) {
	for _, rules := range []Rules{Baseline - 1, Latest + 1} {
		l := New(Config{AgentID: "a", Rules: rules})
		rd := l.Step(time.Unix(0, 0), Resume{})
		require.Len(t, rd.Commands, 1)
		fail, ok := rd.Commands[0].(Fail)
		require.True(t, ok, "rules %d: %v", rules, rd.Commands)
		require.ErrorIs(t, fail.Err, ErrUnknownRules)
	}
	require.Empty(t, New(Config{AgentID: "a"}).Step(time.Unix(0, 0), Resume{}).Commands, "zero means Latest")
}

// spawn_agent's tools: omitted means the parent's, [] means none.
func TestASpawnsEmptyToolListGivesTheChildNoTools(t *testing.T) {
	for args, want := range map[string][]string{
		`{"task":"x"}`:                  {signals.SpawnTool, signals.AskHumanTool, signals.WaitTool, "t"},
		`{"task":"x","tools":null}`:     {signals.SpawnTool, signals.AskHumanTool, signals.WaitTool, "t"},
		`{"task":"x","tools":[]}`:       {},
		`{"task":"x","tools":["t"]}`:    {"t"},
		`{"task":"x","tools":["wait"]}`: {signals.WaitTool},
	} {
		t.Run(args, func(t *testing.T) {
			d := parentDriver(t, signals.AgentOptions{})
			d.followup("f1")
			d.resume()
			d.answerModel(call(signals.SpawnTool, args))
			start := take[StartChild](d)
			require.Equal(t, want, start.Input.Options.Tools)
			d.requireOK()
		})
	}
}

// A message that would make more than signals.MaxPendingBytes wait is
// refused, busy, by the validator and the signal path alike; the agent
// takes messages again once a turn claimed what waits.
func TestAMessageOverThePendingBudgetIsRefusedBusyUntilATurnDrainsIt(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	big := func(id string) signals.Message {
		return signals.Message{ID: eventlog.MessageID(id), Content: strings.Repeat("y", signals.MaxMessageBytes)}
	}
	n := signals.MaxPendingBytes / signals.MaxMessageBytes
	for i := range n {
		require.NoError(t, d.l.Check(big(fmt.Sprint("m", i))))
		require.NoError(t, d.l.Step(d.now, Accept{Message: big(fmt.Sprint("m", i)), List: eventlog.NextStep}).Err)
	}
	require.ErrorIs(t, d.l.Check(big("over")), signals.ErrBusy, "the budget is met exactly: one byte more is refused")
	require.ErrorIs(t, d.l.Step(d.now, Accept{Message: big("over"), List: eventlog.NextStep}).Err, signals.ErrBusy)
	require.ErrorIs(t, d.l.Check(signals.Message{ID: "small", Content: "x"}), signals.ErrBusy, "not even a byte more")
	d.resume() // more waits than a seed carries: a turn claims it
	require.True(t, d.l.State().InTurn)
	require.Zero(t, d.l.State().Inbox.Len())
	require.NoError(t, d.l.Check(big("over")), "what waits was claimed: the agent takes messages again")
	d.requireOK()
}

// One model reply with many calls of a fast tool: 84 read_file calls of a
// large file took one workflow task past gRPC's 4 MiB limit, and the
// server terminated the workflow. The step's first MaxLocalCallsPerStep
// run as local activities, the rest as regular ones, whose results the
// server writes.
func TestAStepRunsAtMostMaxLocalCallsPerStepAsLocalActivities(t *testing.T) {
	opts := signals.AgentOptions{Tools: []string{"read_file"}, MaxParallelTools: MaxCallsPerStep}
	d := newDriver(t, opts, func(c *Config) { c.Local = []string{"read_file"} })
	d.followup("f1")
	d.resume()
	args := make([]string, MaxCallsPerStep)
	for i := range args {
		args[i] = fmt.Sprintf(`{"path":"big-%d"}`, i)
	}
	d.answerModel(callsWith("read_file", args...))
	starts := inFlight[StartTool](d)
	require.Len(t, starts, MaxCallsPerStep)
	for i, s := range starts {
		require.Equal(t, i < MaxLocalCallsPerStep, s.Local, "the first calls in model order run locally")
	}
	d.requireOK()
}

// A resend of a message is a duplicate (already delivered); another
// message under a used ID is refused as reused, by the validator and by
// the signal path, wherever the first one is: pending, scheduled,
// delivered, or carried across Continue-As-New. Before, both were
// duplicates and the different content was dropped without a word.
func TestAReusedIDWithOtherContentIsRefusedNotDropped(t *testing.T) {
	other := func(id string) signals.Message {
		return signals.Message{ID: eventlog.MessageID(id), Content: "something else"}
	}
	for _, where := range []string{"pending", "scheduled", "delivered", "continued"} {
		t.Run(where, func(t *testing.T) {
			d := newDriver(t, signals.AgentOptions{})
			first := Accept{Message: msg("m"), List: eventlog.NextStep}
			if where == "scheduled" {
				first.At = d.now.Add(signals.MaxScheduleAhead / 2)
			}
			require.NoError(t, d.step(first).Err)
			if where == "delivered" || where == "continued" {
				d.steer("go")
				d.resume()
				d.answerModel(answer("done"))
				require.False(t, d.l.State().Holds("m"), "claimed by the turn")
			}
			if where == "continued" {
				seed, err := d.l.Seed()
				require.NoError(t, err)
				d = &driver{t: t, l: Restore(Config{AgentID: "a1"}, seed), now: d.now}
			}
			require.ErrorIs(t, d.l.Check(msg("m")), signals.ErrDuplicateID, "the same message again: already delivered")
			require.ErrorIs(t, d.l.Check(other("m")), signals.ErrReusedID)
			require.NotErrorIs(t, d.l.Check(other("m")), signals.ErrDuplicateID, "a client treating a duplicate as delivered must not take this for one")
			rd := d.step(Accept{Message: other("m"), List: eventlog.NextTurn})
			require.ErrorIs(t, rd.Err, signals.ErrReusedID)
			require.Empty(t, rd.Recorded)
			require.Equal(t, signals.RejectReused, signals.RejectionType(rd.Err))
			d.requireOK()
		})
	}
}

// A seed from before the digests carries IDs only: a resend under one of
// them stays a duplicate, whatever its content (nothing to compare with).
func TestAnOldSeedsIDsStayDuplicates(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.steer("m")
	d.resume()
	d.answerModel(answer("done"))
	seed, err := d.l.Seed()
	require.NoError(t, err)
	require.Len(t, seed.RecentSums, len(seed.Recent))
	seed.RecentSums = nil
	l := Restore(Config{AgentID: "a1"}, seed)
	require.ErrorIs(t, l.Check(signals.Message{ID: "m", Content: "other"}), signals.ErrDuplicateID)
}
