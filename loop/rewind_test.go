package loop

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// rewindSource is forkSource's three turns, with the conversation at the
// end of each turn (index K: the end of turn K; 0 is the start).
func rewindSource(t *testing.T, opts signals.AgentOptions) (*driver, []sourceCall, [][]eventlog.Message) {
	d := newDriver(t, opts)
	ends := [][]eventlog.Message{{}}
	var made []sourceCall
	model := func(out signals.ModelOutput) {
		t.Helper()
		made = append(made, sourceCall{at: d.l.State().Len - 1, conv: conversationOf(t, d.l)})
		d.answerModel(out)
	}
	end := func() { ends = append(ends, withoutSystem(conversationOf(t, d.l))) }
	d.followup("f1")
	d.resume()
	model(answer("one"))
	end()
	d.followup("f2")
	d.resume()
	model(calls("t"))
	d.finishTool("c0", "tool said so")
	model(answer("two"))
	end()
	d.followup("f3")
	d.resume()
	model(answer("three"))
	end()
	d.requireOK()
	return d, made, ends
}

// firstRequests are the source's first model call of each turn (index K:
// turn K+1's), what a rewind to turn K and a followup compare with.
func firstRequests(made []sourceCall) []sourceCall { return []sourceCall{made[0], made[1], made[3]} }

func TestARewindToEachTurnEndSendsTheConversationOfThatTurnWithTheNextMessage(t *testing.T) {
	opts := signals.AgentOptions{SystemPrompt: "sys", Tools: []string{"t"}}
	for k := 0; k <= 3; k++ {
		d, made, ends := rewindSource(t, opts)
		used := d.l.State().Usage
		rd := d.step(Rewind{ToTurn: k, By: "ops"})
		require.NoError(t, rd.Err, "turn %d", k)
		if k == 3 {
			require.Empty(t, rd.Recorded, "already at the end of turn 3: nothing recorded")
		} else {
			require.Len(t, rd.Recorded, 1)
			e, err := eventlog.Decode(rd.Recorded[0])
			require.NoError(t, err)
			rw := e.(eventlog.SessionRewound)
			require.Equal(t, k, rw.ToTurn)
			require.Equal(t, 3, rw.Past)
			require.Equal(t, len(ends[k]), rw.Keep)
			require.Equal(t, "ops", rw.By)
			require.False(t, rd.Journal.IsZero(), "a rewind is made durable at once")
		}
		require.Equal(t, ends[k], withoutSystem(conversationOf(t, d.l)), "turn %d", k)
		require.Equal(t, used, d.l.State().Usage, "spending is never refunded")

		d.followup("g")
		d.resume()
		call := inFlight[CallModel](d)[0]
		require.Equal(t, 4, call.Call.Turn, "turn numbers go on after the last one")
		got := conversationOf(t, d.l)
		if k < 3 {
			// The source's request at the start of turn k+1, its new message
			// replaced by this one.
			want := append([]eventlog.Message(nil), firstRequests(made)[k].conv...)
			want[len(want)-1].Content = "content g"
			require.Equal(t, want, got, "turn %d", k)
		}
		require.Equal(t, append(append([]eventlog.Message{{Role: eventlog.RoleSystem, Content: "sys"}}, ends[k]...),
			eventlog.Message{Role: eventlog.RoleUser, Content: "content g"}), got)
		d.answerModel(answer("again"))
		d.requireOK()

		// What came after turn k is still in the log, as it happened.
		require.Len(t, only[eventlog.UserMessage](d.events()), 4)
		require.Len(t, only[eventlog.TurnEnd](d.events()), 4)
	}
}

func TestARewindReachesATurnOfAnEarlierRunThroughTheSeed(t *testing.T) {
	opts := signals.AgentOptions{SystemPrompt: "sys", Tools: []string{"t"}}
	d, _, ends := rewindSource(t, opts)
	d.step(Continue{})
	seed, err := d.l.Seed()
	require.NoError(t, err)
	require.NotNil(t, seed.Rewind)
	require.Equal(t, []int{0, 1, 2, 3}, turnsOf(seed.Rewind.Turns))

	next := &driver{t: t, l: Restore(Config{AgentID: "a1", Options: opts}, seed), now: d.now}
	next.followup("f4")
	next.resume()
	next.answerModel(answer("four"))
	rd := next.step(Rewind{ToTurn: 1})
	require.NoError(t, rd.Err)
	require.Equal(t, ends[1], withoutSystem(conversationOf(t, next.l)), "the end of turn 1, from the run before")
	require.Equal(t, []int{0, 1}, turnsOf(next.l.RewindMarks().Turns))

	// And the run after it rewinds no further than what this one kept.
	next.step(Continue{})
	seed2, err := next.l.Seed()
	require.NoError(t, err)
	third := Restore(Config{AgentID: "a1", Options: opts}, seed2)
	_, err = third.CheckRewind(signals.Rewind{ToTurn: 3})
	require.ErrorIs(t, err, signals.ErrRewindLost)
	require.ErrorContains(t, err, "rewound past")
	require.ErrorContains(t, err, "fork")
	m, err := third.CheckRewind(signals.Rewind{ToTurn: 0})
	require.NoError(t, err)
	require.Equal(t, signals.TurnMark{Turn: 0, At: -1, Keep: 0}, m)
}

func turnsOf(ms []signals.TurnMark) []int {
	var out []int
	for _, m := range ms {
		out = append(out, m.Turn)
	}
	return out
}

func TestARewindIsRefusedAndRecordsNothing(t *testing.T) {
	opts := signals.AgentOptions{SystemPrompt: "sys", Tools: []string{"t"}, Compaction: &signals.Compaction{KeepRecent: 1}}
	for _, c := range []struct {
		name  string
		setup func(d *driver)
		turn  int
		by    string
		err   error
		says  string
	}{
		{name: "a negative turn", turn: -1, err: signals.ErrInvalidRewind, says: "count from 0"},
		{name: "a turn that never happened", turn: 4, err: signals.ErrInvalidRewind, says: "has not ended"},
		{name: "a huge turn", turn: 1 << 40, err: signals.ErrInvalidRewind, says: "has not ended"},
		{name: "a by over its bound", turn: 1, by: strings.Repeat("x", signals.MaxNameBytes+1), err: signals.ErrInvalidRewind, says: "bytes"},
		{name: "while a turn runs", turn: 1, setup: func(d *driver) { d.followup("f4"); d.resume() },
			err: signals.ErrInvalidRewind, says: "cancel it"},
		{name: "the running turn itself", turn: 4, setup: func(d *driver) { d.followup("f4"); d.resume() },
			err: signals.ErrInvalidRewind, says: "has not ended"},
		{name: "a turn rewound past", turn: 2, setup: func(d *driver) { require.NoError(d.t, d.step(Rewind{ToTurn: 1}).Err) },
			err: signals.ErrRewindLost, says: "rewound past"},
		{name: "a turn before a compaction", turn: 2, setup: func(d *driver) {
			d.step(Maintain{Task: signals.TaskCompact})
			d.resume()
			if s := inFlight[Summarize](d); len(s) > 0 {
				d.step(Summarized{Text: "summary"})
			}
		}, err: signals.ErrRewindLost, says: "the context was"},
		{name: "a disposing agent", turn: 1, setup: func(d *driver) { d.step(Dispose{}) }, err: signals.ErrDisposed},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, _, _ := rewindSource(t, opts)
			if c.setup != nil {
				c.setup(d)
			}
			before := d.l.State().Len
			rd := d.step(Rewind{ToTurn: c.turn, By: c.by})
			require.ErrorIs(t, rd.Err, c.err)
			require.ErrorContains(t, rd.Err, c.says)
			require.Empty(t, rd.Recorded)
			require.Equal(t, before, d.l.State().Len, "nothing recorded")
			d.requireOK()
		})
	}
}

func TestARunUnderOlderRulesRefusesARewind(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{}, func(c *Config) { c.Rules = Rules5 })
	d.followup("f1")
	d.resume()
	d.answerModel(answer("one"))
	rd := d.step(Rewind{ToTurn: 0})
	require.ErrorIs(t, rd.Err, signals.ErrInvalidRewind)
	require.ErrorContains(t, rd.Err, "rules 5")
	require.Empty(t, rd.Recorded)
	d.step(Continue{})
	seed, err := d.l.Seed()
	require.NoError(t, err)
	require.Nil(t, seed.Rewind, "an older run's seed is as it was")

	// Its next run follows the latest rules: it rewinds to where it began,
	// and refuses what came before, naming a fork.
	next := Restore(Config{AgentID: "a1"}, seed)
	_, err = next.CheckRewind(signals.Rewind{ToTurn: 0})
	require.ErrorIs(t, err, signals.ErrRewindLost)
	require.ErrorContains(t, err, "older rules")
	_, err = next.CheckRewind(signals.Rewind{ToTurn: 1})
	require.NoError(t, err)
}

func TestARewindForgetsARuntimeContextRecordedAfterItsTurn(t *testing.T) {
	ctx := "cwd: /a"
	d := newDriver(t, signals.AgentOptions{})
	d.runtime = func() string { return ctx }
	d.followup("f1")
	d.resume()
	d.answerModel(answer("one"))
	ctx = "cwd: /b"
	d.followup("f2")
	d.resume()
	d.answerModel(answer("two"))
	rd := d.step(Rewind{ToTurn: 1})
	require.NoError(t, rd.Err)
	e, _ := eventlog.Decode(rd.Recorded[0])
	require.True(t, e.(eventlog.SessionRewound).Forget)
	d.followup("g")
	d.resume()
	msgs := withoutSystem(conversationOf(t, d.l))
	require.Equal(t, eventlog.RuntimeContextPrefix+"cwd: /b", msgs[len(msgs)-1].Content, "the model sees the present runtime context")

	// Unchanged since the turn, it is not recorded again.
	d2 := newDriver(t, signals.AgentOptions{})
	d2.runtime = func() string { return "same" }
	for _, id := range []string{"f1", "f2"} {
		d2.followup(id)
		d2.resume()
		d2.answerModel(answer("ok"))
	}
	rd = d2.step(Rewind{ToTurn: 1})
	require.NoError(t, rd.Err)
	e, _ = eventlog.Decode(rd.Recorded[0])
	require.False(t, e.(eventlog.SessionRewound).Forget)
}

func TestOnlyTheLastTurnEndsAreKeptForRewinding(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	for i := 0; i < MaxRewindTurns+5; i++ {
		d.followup("f" + itoa(i))
		d.resume()
		d.answerModel(answer("ok"))
	}
	m := d.l.RewindMarks()
	require.Len(t, m.Turns, MaxRewindTurns)
	require.Equal(t, 6, m.Turns[0].Turn)
	_, err := d.l.CheckRewind(signals.Rewind{ToTurn: 5})
	require.ErrorIs(t, err, signals.ErrRewindLost)
	require.ErrorContains(t, err, "only the last")
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
