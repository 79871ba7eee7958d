package loop

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

func TestJournalCarriesEveryEventOnceInHistoryForm(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Tools: []string{"t"}})
	d.followup("f1")
	d.resume()
	call := d.answerModel(answer("hi"))
	require.False(t, call.Input.Journal.IsZero())
	for _, env := range call.Input.Journal.Envelopes() {
		if env.Ref != "" {
			require.NotContains(t, string(env.Data), "content f1", "content stays in the message payload")
		}
	}
	require.Len(t, d.markers, 1, "the idle tail, which no command carries")
	opening, closing := call.Input.Journal.Envelopes(), d.markers[0].Envelopes()
	require.EqualValues(t, 0, opening[0].Seq)
	require.EqualValues(t, d.l.State().Len-1, closing[len(closing)-1].Seq, "journal and log end together")
	require.EqualValues(t, len(opening)+len(closing), d.l.State().Len, "no event journaled twice")
	require.False(t, d.l.Due())
}

func TestPageIsBoundedAndPagesThroughTheLog(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	for i := range 7 {
		d.inject(string(rune('a' + i)))
	}
	p := d.l.Page(signals.LogRequest{From: 2, Limit: 3})
	require.Len(t, p.Events, 3)
	require.EqualValues(t, 2, p.Events[0].Seq)
	require.EqualValues(t, 5, p.Next)
	require.EqualValues(t, 7, p.Len)
	p = d.l.Page(signals.LogRequest{From: 5, To: 6})
	require.Len(t, p.Events, 1)
	require.EqualValues(t, 6, p.Next)
}

func TestSeedCarriesEverythingAndTheLogGoesOn(t *testing.T) {
	opts := signals.AgentOptions{Tools: []string{"t"}, SystemPrompt: "sys"}
	d := newDriver(t, opts)
	d.followup("f1")
	d.resume()
	d.followup("f2") // pending while turn 1 runs
	d.answerModel(signals.ModelOutput{Text: "hi", FinishReason: eventlog.FinishStop, Usage: eventlog.Usage{InputTokens: 7, OutputTokens: 3}})
	d.step(SelectModel{Selection: signals.Selection{Provider: "openai", Model: "next"}})
	d.answerModel(answer("two")) // turn 2 claimed f2 when turn 1 ended
	d.inject("f3")
	d.resume()
	require.True(t, d.l.AtBoundary())

	d.step(Continue{})
	require.Len(t, seen[ContinueAsNew](d), 1)
	seed, err := d.l.Seed()
	require.NoError(t, err)
	seed.PrevRun = "run-1"
	require.Equal(t, d.l.State().Len, seed.State.Len)
	require.Equal(t, "sys", seed.Context.System)
	require.Len(t, seed.Context.Messages, 4, "two prompts, two answers")
	require.Equal(t, []eventlog.Pending{{ID: "f3", Content: "content f3"}}, seed.State.Inbox.NextStep)
	require.Equal(t, 1, seed.Runs)
	require.Equal(t, d.l.State().Usage, seed.State.Usage, "usage, and so budgets, carry over")

	next := &driver{t: t, l: Restore(Config{AgentID: "a1", Options: opts}, seed), now: d.now}
	require.ErrorIs(t, next.l.Check(msg("f2")), signals.ErrDuplicateID, "duplicates are still detected")
	require.ErrorIs(t, next.l.Check(signals.Message{ID: "f2", Content: "again"}), signals.ErrReusedID, "and reused IDs")
	page := next.l.Page(signals.LogRequest{From: 0})
	require.Equal(t, seed.State.Len, page.Base)
	require.Equal(t, "run-1", page.PrevRun)
	require.Equal(t, seed.Context, *page.Context)

	next.followup("f4")
	next.resume()
	call := take[CallModel](next)
	require.Equal(t, 3, call.Call.Turn, "turns go on")
	require.Equal(t, seed.State.Len, call.Input.Journal.From, "seq goes on")
	require.Equal(t, "next", call.Call.Model, "the model selection goes on")
	require.Equal(t, 2, next.l.Status().Runs)
}

// Once it continues as new, every step journals what it recorded: the
// ContinueAsNew carries the journal up to it (Carry puts it there, for the
// seed), and a message accepted while the shell settles comes in the
// Ready that recorded it, the next event, for the shell to add to the seed.
func TestAfterContinueAsNewEachStepJournalsWhatItRecorded(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	d.answerModel(answer("one"))
	d.inject("f2") // waits for a Ready that journals it
	d.step(Continue{})
	cans := seen[ContinueAsNew](d)
	require.Len(t, cans, 1)
	j := cans[0].Journal.Envelopes()
	require.NotEmpty(t, j)
	require.Equal(t, eventlog.TypeInboxInserted, j[len(j)-1].Type, "the request's event comes with the seed")
	require.EqualValues(t, d.l.State().Len-1, j[len(j)-1].Seq)

	rd := d.step(Accept{Message: msg("f3"), List: eventlog.NextTurn, Wake: true})
	require.NoError(t, rd.Err)
	late := rd.Journal.Envelopes()
	require.Len(t, late, 1)
	require.Equal(t, rd.Recorded[0].Seq, late[0].Seq)
	require.Equal(t, j[len(j)-1].Seq+1, late[0].Seq, "no event between them is left out")
	cmds, left := Carry(rd)
	require.Empty(t, cmds)
	require.Equal(t, rd.Journal, left, "no command carries it: the shell's seed does")
	seed, err := d.l.Seed()
	require.NoError(t, err)
	require.True(t, seed.Journal.IsZero(), "the loop leaves the seed's journal to the shell")
}

func TestContinueAsNewWaitsUntilTheLoopIsAtAnIdleBoundary(t *testing.T) {
	t.Run("a turn in progress", func(t *testing.T) {
		d := newDriver(t, signals.AgentOptions{})
		d.followup("f1")
		d.resume()
		d.step(Continue{})
		require.Empty(t, seen[ContinueAsNew](d))
		require.False(t, d.l.Continuing())
	})
	t.Run("a dispose that arrived", func(t *testing.T) {
		d := newDriver(t, signals.AgentOptions{})
		d.step(Dispose{Cause: "bye"})
		d.step(Continue{})
		require.Empty(t, seen[ContinueAsNew](d))
		require.Len(t, seen[Finish](d), 1, "the run finishes instead")
	})
	t.Run("pending messages too large for a seed", func(t *testing.T) {
		d := newDriver(t, signals.AgentOptions{}, func(c *Config) { c.MaxSeedBytes = 100 })
		d.step(Accept{Message: signals.Message{ID: "big", Content: strings.Repeat("x", 200)}, List: eventlog.NextStep})
		d.step(Continue{})
		require.Empty(t, seen[ContinueAsNew](d))
	})
}

func TestContinueAsNewCompactsAContextTooLargeForASeedFirst(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{}, func(c *Config) { c.MaxSeedBytes = 1000 })
	for i := range 6 {
		d.followup(string(rune('a' + i)))
		d.resume()
		d.answerModel(answer(strings.Repeat("long answer ", 30)))
	}
	before := d.l.ContextTokens()
	d.step(Continue{})
	require.True(t, d.l.Continuing())
	require.Empty(t, seen[ContinueAsNew](d), "not before the summary")
	sum := take[Summarize](d)
	require.NotNil(t, sum.Input.Call.Summarize)
	d.step(Summarized{Text: "short"})
	require.Len(t, seen[ContinueAsNew](d), 1)
	seed, err := d.l.Seed()
	require.NoError(t, err)
	require.Less(t, eventlog.RestoreConversation(seed.Context).Chars()/4, before, "the seed carries the compacted context")
	require.Equal(t, "short", only[eventlog.ContextCompacted](d.events())[0].Text)
}

func TestContextSizeIsTrackedAsTheConversationFoldCountsIt(t *testing.T) {
	opts := signals.AgentOptions{Tools: []string{"t"}, SystemPrompt: "be brief",
		Compaction: &signals.Compaction{KeepRecent: 2, PruneOver: 100}}
	d := newDriver(t, opts)
	d.followup("f1")
	d.resume()
	d.answerModel(signals.ModelOutput{ToolCalls: []eventlog.ToolCallRequest{{ID: "c0", Name: "t", Arguments: []byte(`{"q":"x"}`)}}})
	d.finishTool("c0", strings.Repeat("r", 400))
	d.answerModel(answer("a long answer of some length"))
	d.followup("f2")
	d.resume()
	d.answerModel(answer("and another"))
	want := func() (int, int) {
		conv, err := d.l.conversation()
		require.NoError(t, err)
		return conv.Chars() / 4, len(conv.Messages()) - 1
	}
	check := func(why string) {
		tokens, msgs := want()
		require.Equal(t, tokens, d.l.ContextTokens(), why)
		require.Equal(t, msgs, d.l.msgs, why)
	}
	check("as recorded")
	d.step(Maintain{Task: signals.TaskCompact})
	d.resume()
	require.Len(t, only[eventlog.ContextPruned](d.events()), 1)
	check("after pruning")
	take[Summarize](d)
	d.step(Summarized{Text: "short"})
	require.Len(t, only[eventlog.ContextCompacted](d.events()), 1)
	check("after a summary")

	d.step(Continue{})
	seed, err := d.l.Seed()
	require.NoError(t, err)
	next := Restore(Config{AgentID: "a1", Options: opts}, seed)
	require.Equal(t, d.l.ContextTokens(), next.ContextTokens(), "carried across Continue-As-New")
	require.Equal(t, d.l.msgs, next.msgs)
}

func TestAnOutcomeNobodyAskedForFailsTheRun(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	rd := d.step(ModelDone{Output: answer("out of the blue")})
	require.ErrorIs(t, d.l.Err(), eventlog.ErrInvalidTransition)
	require.Equal(t, []Command{Fail{Err: d.l.Err()}}, rd.Commands)
	rd = d.step(Resume{})
	require.IsType(t, Fail{}, rd.Commands[0], "a failed loop keeps failing")
}

func TestATurnEndIsABoundaryWhereTheRunMayContinueAsNew(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.followup("f2")
	d.resume()
	take[CallModel](d)
	rd := d.l.Step(d.now, ModelDone{Output: answer("one")})
	require.Empty(t, rd.Commands, "a step boundary is where a long turn may continue as new")
	require.True(t, d.l.BetweenSteps())
	rd = d.l.Step(d.now, Resume{})
	require.Equal(t, []Command{RunHooks{Point: PointTurnStopping}}, rd.Commands)
	rd = d.l.Step(d.now, HooksRan{Point: PointTurnStopping})
	require.Empty(t, rd.Commands, "the next turn does not open in the same step")
	require.Equal(t, eventlog.TypeTurnEnd, rd.Recorded[len(rd.Recorded)-1].Type)
	require.True(t, d.l.AtBoundary())
	require.True(t, d.l.Due())
	d.step(Continue{})
	require.Len(t, seen[ContinueAsNew](d), 1)
	seed, err := d.l.Seed()
	require.NoError(t, err)
	require.Equal(t, eventlog.MessageID("f2"), seed.State.Inbox.NextTurn[0].ID, "the due followup rides in the seed")
}

func TestALongTurnContinuesAsNewBetweenTwoStepsAndGoesOn(t *testing.T) {
	opts := signals.AgentOptions{Tools: []string{"t"}}
	d := newDriver(t, opts)
	d.followup("f1")
	d.resume()
	d.answerModel(calls("t"))
	take[StartTool](d)
	out := signals.ToolOutput{CallID: "c0", Name: "t", Content: "r"}
	rd := d.l.Step(d.now, ToolDone{CallID: "c0", Output: out, Ref: "act:tool-1-1-0"})
	require.IsType(t, RunToolPost{}, rd.Commands[0])
	rd = d.l.Step(d.now, ToolPostRan{CallID: "c0", Output: out})
	require.Empty(t, rd.Commands)
	require.True(t, d.l.AtBoundary(), "between two steps, nothing open")
	d.step(Continue{})
	require.Len(t, seen[ContinueAsNew](d), 1)
	seed, err := d.l.Seed()
	require.NoError(t, err)
	require.True(t, seed.State.InTurn)
	require.Equal(t, &signals.OpenTurn{ToolCalls: true}, seed.Turn)

	next := &driver{t: t, l: Restore(Config{AgentID: "a1", Options: opts}, seed), now: d.now}
	next.resume()
	call := inFlight[CallModel](next)[0]
	require.Equal(t, 1, call.Call.Turn)
	require.Equal(t, 2, call.Call.Step, "the turn goes on with its next step")
	next.answerModel(answer("done after the switch"))
	require.Equal(t, eventlog.EndCompleted, only[eventlog.TurnEnd](next.events())[0].Reason)
	next.requireOK()
}

func TestATurnDoesNotContinueAsNewWhileCanceling(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Tools: []string{"t"}})
	d.followup("f1")
	d.resume()
	d.answerModel(calls("t"))
	d.step(Cancel{Cause: "stop"})
	d.cancelInflight()
	require.False(t, d.l.BetweenSteps())
}
