package transcript

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// log encodes events as a gap-free log.
func log(t *testing.T, evs ...eventlog.Event) []eventlog.Envelope {
	t.Helper()
	out := make([]eventlog.Envelope, 0, len(evs))
	for i, e := range evs {
		env, err := eventlog.Encode(int64(i), t0.Add(time.Duration(i)*time.Second), "", e)
		require.NoError(t, err)
		out = append(out, env)
	}
	return out
}

func toolTurn() []eventlog.Event {
	return []eventlog.Event{
		eventlog.InboxInserted{MessageID: "m1", List: eventlog.NextTurn, Content: "what time is it?", Wake: true},
		eventlog.StatusChanged{Status: eventlog.StatusRunning},
		eventlog.TurnStart{Turn: 1},
		eventlog.InboxClaimed{MessageID: "m1", List: eventlog.NextTurn, Turn: 1},
		eventlog.StepStart{Turn: 1, Step: 1, Provider: "scripted", Model: "m1"},
		eventlog.SystemMessage{Content: "You are terse."},
		eventlog.UserMessage{MessageID: "m1", Content: "what time is it?"},
		eventlog.RequestContext{Messages: 2, Tokens: 40},
		eventlog.AssistantMessage{ToolCalls: []eventlog.ToolCallRequest{{ID: "c1", Name: "current_time", Arguments: json.RawMessage(`{"tz":"UTC"}`)}},
			Usage: eventlog.Usage{InputTokens: 1000, OutputTokens: 100}, FinishReason: eventlog.FinishToolCalls,
			Stream: &eventlog.StreamTiming{FirstMs: 120, Ms: 900, Chunks: 4}},
		eventlog.ToolCall{CallID: "c1", Name: "current_time", IdempotencyKey: "a/1/1/c1"},
		eventlog.ToolResult{CallID: "c1", Name: "current_time", Content: "12:00"},
		eventlog.StepEnd{Turn: 1, Step: 1},
		eventlog.StepStart{Turn: 1, Step: 2, Provider: "scripted", Model: "m1"},
		eventlog.AssistantMessage{Text: "It is **noon**.", Usage: eventlog.Usage{InputTokens: 1000, OutputTokens: 50, CachedTokens: 800},
			FinishReason: eventlog.FinishStop},
		eventlog.StepEnd{Turn: 1, Step: 2},
		eventlog.TurnEnd{Turn: 1, Reason: eventlog.EndCompleted},
		eventlog.StatusChanged{Status: eventlog.StatusIdle},
	}
}

func TestATurnGroupsStepsWithToolCallsPairedWithTheirResults(t *testing.T) {
	tr, err := Build(log(t, toolTurn()...), signals.Prices{})
	require.NoError(t, err)
	require.Len(t, tr.Blocks, 1)
	b := tr.Blocks[0]
	require.Equal(t, "turn-1", b.ID)
	require.False(t, b.Open())
	require.Equal(t, eventlog.EndCompleted, b.End.Reason)
	require.Len(t, b.Entries, 2)

	s1 := b.Entries[0].Step
	require.Equal(t, []Kind{KindSystem, KindUser, KindCall}, kinds(s1.Items))
	call := s1.Items[2].Call
	require.Equal(t, "current_time", call.Name)
	require.Equal(t, "{\n  \"tz\": \"UTC\"\n}", call.Arguments)
	require.True(t, call.Started)
	require.Equal(t, "12:00", call.Result.Content)
	require.Equal(t, &eventlog.RequestContext{Messages: 2, Tokens: 40}, s1.Context)
	require.Equal(t, int64(120), s1.Timing.FirstMs)
	require.False(t, s1.Calling)

	s2 := b.Entries[1].Step
	require.Equal(t, []Kind{KindAssistant}, kinds(s2.Items))
	require.Contains(t, string(s2.Items[0].HTML), "<strong>noon</strong>")
	require.Equal(t, Usage{Input: 2000, Output: 150, Cached: 800}, b.Usage)
	require.Equal(t, b.Usage, tr.Total)
	require.EqualValues(t, 17, tr.Next)
	require.EqualValues(t, 15, b.End.Seq)
	require.EqualValues(t, 16, b.End.AsOf, "the session as of the turn's end includes the idle status after it")
}

func TestATurnEndNotFollowedByItsStatusIsItsOwnPosition(t *testing.T) {
	evs := toolTurn()
	evs = append(evs[:len(evs)-1], eventlog.InboxInserted{MessageID: "m2", List: eventlog.NextTurn, Content: "again", Wake: true},
		eventlog.StatusChanged{Status: eventlog.StatusIdle})
	tr, err := Build(log(t, evs...), signals.Prices{})
	require.NoError(t, err)
	require.EqualValues(t, 15, tr.Blocks[0].End.AsOf)
}

func TestUsageIsPricedWhenTheAgentHasPrices(t *testing.T) {
	tr, err := Build(log(t, toolTurn()...), signals.Prices{Input: 3, Output: 15, Cached: 0.3})
	require.NoError(t, err)
	// Step 1: 1000 in, 100 out; step 2: 200 fresh in, 800 cached, 50 out.
	want := (1000*3 + 100*15 + 200*3 + 800*0.3 + 50*15) / 1e6
	require.InDelta(t, want, tr.Total.Cost, 1e-12)
	require.True(t, tr.Total.Priced)
	require.InDelta(t, (1000*3+100*15)/1e6, tr.Blocks[0].Entries[0].Step.Usage.Cost, 1e-12)
}

func TestARetryTurnNamesTheTurnItRepeatsAndTheFailureIsRecorded(t *testing.T) {
	tr, err := Build(log(t,
		eventlog.TurnStart{Turn: 1},
		eventlog.StepStart{Turn: 1, Step: 1},
		eventlog.AssistantAttempt{Failure: eventlog.Failure{Kind: eventlog.FailureOverloaded, Message: "overloaded", StatusCode: 529},
			Stream: &eventlog.StreamTiming{Ms: 300}},
		eventlog.StepEnd{Turn: 1, Step: 1},
		eventlog.TurnEnd{Turn: 1, Reason: eventlog.EndFailed, Error: "model call failed: overloaded"},
		eventlog.TurnStart{Turn: 2, RetryOf: 1},
		eventlog.StepStart{Turn: 2, Step: 1},
	), signals.Prices{})
	require.NoError(t, err)
	require.Len(t, tr.Blocks, 2)
	failed := tr.Blocks[0]
	require.True(t, failed.End.Failed())
	require.Equal(t, "model call failed: overloaded", failed.End.Error)
	att := failed.Entries[0].Step.Items[0]
	require.Equal(t, KindAttempt, att.Kind)
	require.Equal(t, eventlog.FailureOverloaded, att.Failure.Kind)
	require.Equal(t, "error", att.Class)
	retry := tr.Blocks[1]
	require.Equal(t, 1, retry.RetryOf)
	require.True(t, retry.Open())
	require.True(t, retry.Entries[0].Step.Calling, "the retry's model call is in flight")
}

func TestToolOutcomesAndLongResultsArePreviewed(t *testing.T) {
	long := strings.Repeat("é", PreviewBytes) // two bytes a rune: the cut falls mid-rune
	tr, err := Build(log(t,
		eventlog.TurnStart{Turn: 1},
		eventlog.StepStart{Turn: 1, Step: 1},
		eventlog.AssistantMessage{ToolCalls: []eventlog.ToolCallRequest{
			{ID: "a", Name: "read_file", Arguments: json.RawMessage(`{"path":"big"}`)},
			{ID: "b", Name: "rm", Arguments: json.RawMessage(`{}`)},
		}},
		eventlog.ToolCall{CallID: "a", Name: "read_file"},
		eventlog.ToolResult{CallID: "a", Name: "read_file", Content: long},
		eventlog.ToolResult{CallID: "b", Name: "rm", Content: "denied by policy", IsError: true, Outcome: eventlog.ToolDenied},
	), signals.Prices{})
	require.NoError(t, err)
	items := tr.Blocks[0].Entries[0].Step.Items
	a, b := items[0].Call, items[1].Call
	require.True(t, a.Result.Long)
	require.LessOrEqual(t, len(a.Result.Preview), PreviewBytes+len("…"))
	require.True(t, strings.HasSuffix(a.Result.Preview, "é…"), "cut at a rune boundary")
	require.False(t, b.Started, "a denied call never started")
	require.Equal(t, eventlog.ToolDenied, b.Result.Outcome)
	require.True(t, b.Result.IsError)
}

func TestEventsBetweenTurnsFormAGapBlock(t *testing.T) {
	evs := append(toolTurn(),
		eventlog.MaintenanceQueued{Task: "compact"},
		eventlog.ContextCompacted{Text: "The user asked the time.", Keep: 2},
		eventlog.MaintenanceDone{Task: "compact", Before: 900, After: 120},
		eventlog.InboxInserted{MessageID: "m2", List: eventlog.NextStep, Content: "be brief"},
		eventlog.InboxDiscarded{MessageID: "m2", List: eventlog.NextStep, Outcome: eventlog.DiscardCanceled, Cause: "stop"},
		eventlog.ModelSelected{Selection: eventlog.Selection{Provider: "openai", Model: "gpt-4o"}},
	)
	tr, err := Build(log(t, evs...), signals.Prices{})
	require.NoError(t, err)
	require.Len(t, tr.Blocks, 2)
	gap := tr.Blocks[1]
	require.Equal(t, "gap-17", gap.ID)
	require.False(t, gap.IsTurn())
	var texts []string
	for _, e := range gap.Entries {
		texts = append(texts, e.Note.Text)
	}
	require.Equal(t, []string{
		"maintenance queued: compact",
		"The user asked the time.",
		"maintenance compact done: context ~900 → ~120 tokens",
		"message m2 discarded (canceled): stop: be brief",
		"model switched to openai/gpt-4o from the next step",
	}, texts)
	require.Equal(t, 2, gap.Entries[1].Note.Keep)
	require.Equal(t, "openai", tr.Selection.Provider)
}

func TestSinceReturnsTheBlocksLaterEventsChanged(t *testing.T) {
	envs := log(t, append(toolTurn(), eventlog.TurnStart{Turn: 2}, eventlog.StepStart{Turn: 2, Step: 1})...)
	tr := New(signals.Prices{})
	for _, env := range envs[:10] {
		_, err := tr.Apply(env)
		require.NoError(t, err)
	}
	require.Equal(t, []string{"turn-1"}, ids(tr.Since(0)))
	var changed []string
	for _, env := range envs[10:] {
		b, err := tr.Apply(env)
		require.NoError(t, err)
		if b != nil {
			changed = append(changed, b.ID)
		}
	}
	// The idle status after turn/end changes turn 1 too: its end moves to it.
	require.Equal(t, []string{"turn-1", "turn-1", "turn-1", "turn-1", "turn-1", "turn-1", "turn-1", "turn-2", "turn-2"}, changed)
	require.Equal(t, []string{"turn-2"}, ids(tr.Since(17)))
	require.Equal(t, []string{"turn-1", "turn-2"}, ids(tr.Since(15)))
}

func TestApplyIgnoresWhatItHasAndRefusesAGap(t *testing.T) {
	envs := log(t, toolTurn()...)
	tr := New(signals.Prices{})
	for _, env := range envs[:3] {
		_, err := tr.Apply(env)
		require.NoError(t, err)
	}
	b, err := tr.Apply(envs[1])
	require.NoError(t, err)
	require.Nil(t, b)
	_, err = tr.Apply(envs[5])
	require.ErrorIs(t, err, ErrGap)
}

func TestMarkdownEscapesRawHTMLAndDropsUnsafeLinks(t *testing.T) {
	cases := []struct{ name, in, want, never string }{
		{"inline html", "hi <script>alert(1)</script> there", "&lt;script&gt;alert(1)&lt;/script&gt;", "<script"},
		{"html block", "<div onclick=\"x()\">\nboo\n</div>", "&lt;div onclick=&#34;x()&#34;&gt;", "<div"},
		{"javascript link", "[click](javascript:alert(1))", `<a href="">click</a>`, "javascript:"},
		{"image onerror", `<img src=x onerror=alert(1)>`, "&lt;img src=x onerror=alert(1)&gt;", "<img"},
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |", "<td>1</td>", ""},
		{"code", "```go\nfmt.Println(\"<b>\")\n```", `<code class="language-go">fmt.Println(&quot;&lt;b&gt;&quot;)`, "<b>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := string(Markdown(tc.in))
			require.Contains(t, got, tc.want)
			if tc.never != "" {
				require.NotContains(t, got, tc.never)
			}
		})
	}
}

func kinds(items []*Item) []Kind {
	var out []Kind
	for _, it := range items {
		out = append(out, it.Kind)
	}
	return out
}

func ids(bs []*Block) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.ID)
	}
	return out
}
