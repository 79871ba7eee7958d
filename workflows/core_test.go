package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

// The core is table-tested with no Temporal at all: messages in, commands
// out, outcomes back.

var t0 = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

func newTestCore(tools ...string) *Core {
	return NewCore("a1", signals.AgentOptions{Tools: tools}, nil)
}

// drive answers every hook command with the loop's default, as an agent
// with no hooks enabled, and returns the first command that needs I/O.
func drive(c *Core, now time.Time) Command {
	for {
		switch cmd := c.Next(now).(type) {
		case RunHooks:
			c.HooksDone(now, cmd.Point, "", nil)
		case ChooseModel:
			c.ModelChosen(now, cmd.Default, nil)
		case DecidePreStep:
			c.PreStepDone(now, hook.Enter(cmd.Batch), nil)
		case ShapeRequest:
			c.RequestShaped(now, cmd.Default, nil)
		case Recover:
			c.Recovered(now, hook.Action{}, nil)
		default:
			return cmd
		}
	}
}

func accept(t *testing.T, c *Core, id string, list eventlog.List, wake bool) {
	t.Helper()
	_, err := c.Accept(t0, signals.Message{ID: eventlog.MessageID(id), Content: "content " + id}, list, wake)
	require.NoError(t, err)
}

func TestNextDecidesFromInbox(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, c *Core)
		want  Command
	}{
		{"empty inbox awaits work", func(*testing.T, *Core) {}, AwaitWork{}},
		{"inject alone awaits work", func(t *testing.T, c *Core) { accept(t, c, "i", eventlog.NextStep, false) }, AwaitWork{}},
		{"followup calls the model", func(t *testing.T, c *Core) { accept(t, c, "f", eventlog.NextTurn, true) }, CallModel{}},
		{"steer calls the model", func(t *testing.T, c *Core) { accept(t, c, "s", eventlog.NextStep, true) }, CallModel{}},
		{"dispose finishes", func(t *testing.T, c *Core) { c.Dispose(t0, "bye") }, Finish{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCore()
			tc.setup(t, c)
			require.IsType(t, tc.want, drive(c, t0))
			require.NoError(t, c.Err())
		})
	}
}

func TestFirstStepClaimsNextStepInputPlusOneFollowup(t *testing.T) {
	c := newTestCore()
	accept(t, c, "f1", eventlog.NextTurn, true)
	accept(t, c, "f2", eventlog.NextTurn, true)
	accept(t, c, "i1", eventlog.NextStep, false)
	cmd := drive(c, t0).(CallModel)
	require.Equal(t, 1, cmd.Input.Call.Turn)
	require.Equal(t, 1, cmd.Input.Call.Step)
	st := c.State()
	require.Len(t, st.Inbox.NextTurn, 1, "one followup per turn")
	require.Equal(t, eventlog.MessageID("f2"), st.Inbox.NextTurn[0].ID)
	require.Empty(t, st.Inbox.NextStep)
	require.EqualValues(t, st.Len, cmd.Input.Ref.Upto, "the model reads the log up to its own position")
}

func TestJournalCarriesEveryEventOnceInHistoryForm(t *testing.T) {
	c := newTestCore("t")
	accept(t, c, "f1", eventlog.NextTurn, true)
	cmd := drive(c, t0).(CallModel)
	require.False(t, cmd.Input.Journal.IsZero())
	for _, env := range cmd.Input.Journal.Envelopes() {
		if env.Ref != "" {
			require.NotContains(t, string(env.Data), "content f1", "content stays in the message payload")
		}
	}
	c.ModelDone(t0, cmd, signals.ModelOutput{Text: "hi", FinishReason: eventlog.FinishStop}, nil)
	await := drive(c, t0).(AwaitWork)
	opening, closing := cmd.Input.Journal.Envelopes(), await.Journal.Envelopes()
	require.EqualValues(t, 0, opening[0].Seq)
	require.EqualValues(t, c.State().Len-1, closing[len(closing)-1].Seq, "journal and log end together")
	require.EqualValues(t, len(opening)+len(closing), c.State().Len, "no event journaled twice")
	require.False(t, c.HasJournal())
}

func TestToolDoneOutOfModelOrderIsAnInvalidTransition(t *testing.T) {
	c := newTestCore("t")
	accept(t, c, "f1", eventlog.NextTurn, true)
	cmd := drive(c, t0).(CallModel)
	c.ModelDone(t0, cmd, signals.ModelOutput{ToolCalls: []eventlog.ToolCallRequest{{ID: "a", Name: "t"}, {ID: "b", Name: "t"}}}, nil)
	require.IsType(t, RunTools{}, drive(c, t0))
	c.ToolDone(t0, signals.ToolOutput{CallID: "b", Name: "t"}, "tool-1-1-1")
	require.ErrorIs(t, c.Err(), eventlog.ErrInvalidTransition)
	require.IsType(t, Fail{}, drive(c, t0))
}

func TestCancelWhileIdleOnlyClearsTheInbox(t *testing.T) {
	c := newTestCore()
	accept(t, c, "i1", eventlog.NextStep, false)
	require.False(t, c.Cancel(t0, "clear", false))
	require.Zero(t, c.State().Inbox.Len())
	require.IsType(t, AwaitWork{}, drive(c, t0))
	require.Equal(t, 0, c.State().Turn)
}

func TestCheckMessageRejectsAfterDispose(t *testing.T) {
	c := newTestCore()
	c.Dispose(t0, "")
	require.ErrorIs(t, c.CheckMessage(signals.Message{ID: "x", Content: "y"}), signals.ErrDisposed)
}

func TestPageIsBoundedAndPagesThroughTheLog(t *testing.T) {
	c := newTestCore()
	for i := range 7 {
		accept(t, c, string(rune('a'+i)), eventlog.NextStep, false)
	}
	p := c.Page(signals.LogRequest{From: 2, Limit: 3})
	require.Len(t, p.Events, 3)
	require.EqualValues(t, 2, p.Events[0].Seq)
	require.EqualValues(t, 5, p.Next)
	require.EqualValues(t, 7, p.Len)
	p = c.Page(signals.LogRequest{From: 5, To: 6})
	require.Len(t, p.Events, 1)
	require.EqualValues(t, 6, p.Next)
}

func TestSeedCarriesEverythingAndTheLogGoesOn(t *testing.T) {
	c := NewCore("a1", signals.AgentOptions{Tools: []string{"t"}, SystemPrompt: "sys"}, nil)
	accept(t, c, "f1", eventlog.NextTurn, true)
	cmd := drive(c, t0).(CallModel)
	c.ModelDone(t0, cmd, signals.ModelOutput{Text: "hi", FinishReason: eventlog.FinishStop, Usage: eventlog.Usage{InputTokens: 7, OutputTokens: 3}}, nil)
	accept(t, c, "f2", eventlog.NextTurn, true) // pending across the switch
	c.SelectModel(signals.Selection{Provider: "openai", Model: "next"})
	require.IsType(t, CallModel{}, drive(c, t0)) // turn 2 starts: f2 claimed
	cmd = drive(c, t0).(CallModel)
	c.ModelDone(t0, cmd, signals.ModelOutput{Text: "two", FinishReason: eventlog.FinishStop}, nil)
	accept(t, c, "f3", eventlog.NextStep, false)
	require.IsType(t, AwaitWork{}, drive(c, t0))
	require.True(t, c.AtBoundary())

	seed, err := c.Seed("run-1")
	require.NoError(t, err)
	require.Equal(t, c.State().Len, seed.State.Len)
	require.Equal(t, "sys", seed.Context.System)
	require.Len(t, seed.Context.Messages, 4, "two prompts, two answers")
	require.Equal(t, []eventlog.Pending{{ID: "f3", Content: "content f3"}}, seed.State.Inbox.NextStep)
	require.Equal(t, 1, seed.Runs)
	require.Equal(t, c.State().Usage, seed.State.Usage, "usage, and so budgets, carry over")

	next := NewCore("a1", signals.AgentOptions{Tools: []string{"t"}, SystemPrompt: "sys"}, nil)
	next.Restore(seed)
	require.ErrorIs(t, next.CheckMessage(signals.Message{ID: "f2", Content: "again"}), signals.ErrDuplicateID, "duplicates are still detected")
	page := next.Page(signals.LogRequest{From: 0})
	require.Equal(t, seed.State.Len, page.Base)
	require.Equal(t, "run-1", page.PrevRun)
	require.Equal(t, seed.Context, *page.Context)

	accept(t, next, "f4", eventlog.NextTurn, true)
	cmd = drive(next, t0).(CallModel)
	require.Equal(t, 3, cmd.Input.Call.Turn, "turns go on")
	require.Equal(t, seed.State.Len, cmd.Input.Journal.From, "seq goes on")
	require.Equal(t, "next", cmd.Input.Call.Model, "the committed selection goes on")
	require.Equal(t, 2, next.Status().Runs)
}

func TestContextSizeIsTrackedAsTheConversationFoldCountsIt(t *testing.T) {
	c := NewCore("a1", signals.AgentOptions{Tools: []string{"t"}, SystemPrompt: "be brief"}, nil)
	for i, reply := range []signals.ModelOutput{
		{ToolCalls: []eventlog.ToolCallRequest{{ID: "c1", Name: "t", Arguments: []byte(`{"q":"x"}`)}}},
		{Text: "a long answer of some length", FinishReason: eventlog.FinishStop},
	} {
		if i == 0 {
			accept(t, c, "f1", eventlog.NextTurn, true)
		}
		cmd := drive(c, t0).(CallModel)
		c.ModelDone(t0, cmd, reply, nil)
		if len(reply.ToolCalls) > 0 {
			require.IsType(t, RunTools{}, drive(c, t0))
			c.ToolDone(t0, signals.ToolOutput{CallID: "c1", Name: "t", Content: strings.Repeat("r", 400)}, "tool-1-1-0")
		}
	}
	require.IsType(t, AwaitWork{}, drive(c, t0))
	want := func() int {
		conv, err := c.conversation()
		require.NoError(t, err)
		return conv.Chars() / 4
	}
	require.Equal(t, want(), c.ContextTokens())
	c.Pruned(t0, []string{"c1"})
	require.Equal(t, want(), c.ContextTokens())
	c.Compacted(t0, "short", 1, "compact-9")
	require.Equal(t, want(), c.ContextTokens())

	seed, err := c.Seed("r1")
	require.NoError(t, err)
	next := NewCore("a1", signals.AgentOptions{Tools: []string{"t"}, SystemPrompt: "be brief"}, nil)
	next.Restore(seed)
	require.Equal(t, c.ContextTokens(), next.ContextTokens(), "carried across Continue-As-New")
}
