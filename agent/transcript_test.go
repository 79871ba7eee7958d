package agent

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

func TestPreviewKeepsShortTextAndCutsLongText(t *testing.T) {
	numbered := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	long := strings.Repeat("é", 200) // 400 bytes on one line
	cases := []struct {
		name, text, want string
	}{
		{"short", "391", "391"},
		{"five lines are whole", numbered(5), strings.TrimRight(numbered(5), "\n")},
		{"trailing blank lines are not content", "a\n\n\n\n\n\n\n", "a"},
		{"six lines keep five", numbered(6),
			"line 1\nline 2\nline 3\nline 4\nline 5\n… (1 more line, 42 bytes in all; full text: starter log --json a1)"},
		{"many lines", numbered(175),
			"line 1\nline 2\nline 3\nline 4\nline 5\n… (170 more lines, 1467 bytes in all; full text: starter log --json a1)"},
		{"one long line is cut on a rune boundary", long,
			strings.Repeat("é", 150) + "…\n… (400 bytes in all; full text: starter log --json a1)"},
		{"long lines are cut by bytes", long + "\nnext\n",
			strings.Repeat("é", 150) + "…\n… (1 more line, 406 bytes in all; full text: starter log --json a1)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Preview(tc.text, "a1"))
		})
	}
}

func TestTranscriptPreviewsLongToolResultsAndNamesTheFullLog(t *testing.T) {
	readme := "# Tether\n\nDurable LLM agents on Temporal.\n" + strings.Repeat("More README text.\n", 172)
	evs := []eventlog.Event{
		eventlog.TurnStart{Turn: 1},
		eventlog.AssistantMessage{ToolCalls: []eventlog.ToolCallRequest{{ID: "c1", Name: "read_file", Arguments: []byte(`{"path":"README.md"}`)}}},
		eventlog.ToolResult{CallID: "c1", Name: "read_file", Content: readme},
		eventlog.ToolResult{CallID: "c2", Name: "calculate", Content: "391"},
	}
	var log []eventlog.Envelope
	for i, e := range evs {
		env, err := eventlog.Encode(int64(i), time.Unix(0, 0), "", e)
		require.NoError(t, err)
		log = append(log, env)
	}
	var out bytes.Buffer
	require.NoError(t, WriteTranscript(&out, "demo-1", log))
	require.Equal(t, `── turn 1 ──
tool call:   read_file {"path":"README.md"}
tool result: read_file → # Tether
             
             Durable LLM agents on Temporal.
             More README text.
             More README text.
             … (170 more lines, 3138 bytes in all; full text: starter log --json demo-1)
tool result: calculate → 391
`, out.String())
}

func TestTranscriptSaysWhatEachMCPServerOffered(t *testing.T) {
	env, err := eventlog.Encode(0, time.Unix(0, 0), "", eventlog.ToolsListed{Servers: []eventlog.ServerTools{
		{Server: "files", Tools: []eventlog.MCPTool{{Name: "read"}, {Name: "write"}}},
		{Server: "search", Unchanged: true},
		{Server: "tickets", Error: "connect: connection refused"},
		{Server: "docs", Tools: []eventlog.MCPTool{{Name: "find"}}, Error: `tool "huge" left out: schema over 16 KiB`},
	}})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, WriteTranscript(&out, "a1", []eventlog.Envelope{env}))
	require.Equal(t, "mcp tools:   files 2 tools, search unchanged, tickets failed (connect: connection refused), "+
		"docs 1 tools: tool \"huge\" left out: schema over 16 KiB\n", out.String())
}

func TestTranscriptShowsAScheduledMessageAndTheTimerThatDeliveredIt(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	evs := []eventlog.Event{
		eventlog.MessageScheduled{MessageID: "r1", List: eventlog.NextTurn, Content: "report", Wake: true, At: at},
		eventlog.InboxInserted{MessageID: "r1", List: eventlog.NextTurn, Content: "report", Wake: true,
			From: &eventlog.Initiator{Kind: eventlog.ByTimer}},
		eventlog.TurnStart{Turn: 1},
		eventlog.UserMessage{MessageID: "r1", Content: "report"},
	}
	var log []eventlog.Envelope
	for i, e := range evs {
		env, err := eventlog.Encode(int64(i), time.Unix(0, 0), "", e)
		require.NoError(t, err)
		log = append(log, env)
	}
	var out bytes.Buffer
	require.NoError(t, WriteTranscript(&out, "a1", log))
	require.Equal(t, "scheduled:   message r1 for 2026-12-01T10:00:00Z (next-turn): report\n── turn 1 ──\ntimer:       report\n", out.String())
}

func TestTranscriptTellsHowMessagesCameAndShowsCompactionModelsAndAnswers(t *testing.T) {
	evs := []eventlog.Event{
		eventlog.InboxInserted{MessageID: "f", List: eventlog.NextTurn, Content: "go", Wake: true},
		eventlog.InboxInserted{MessageID: "s", List: eventlog.NextStep, Content: "faster", Wake: true},
		eventlog.InboxInserted{MessageID: "i", List: eventlog.NextStep, Content: "fyi"},
		eventlog.InboxInserted{MessageID: "p", List: eventlog.NextStep, Content: "hurry", Wake: true,
			From: &eventlog.Initiator{Kind: eventlog.ByParent, ID: "a0"}},
		eventlog.TurnStart{Turn: 1},
		eventlog.UserMessage{MessageID: "f", Content: "go"},
		eventlog.UserMessage{MessageID: "s", Content: "faster"},
		eventlog.UserMessage{MessageID: "i", Content: "fyi"},
		eventlog.UserMessage{MessageID: "p", Content: "hurry"},
		eventlog.DecisionRequested{CallID: "q1", Name: "ask_human", Kind: eventlog.NeedAnswer},
		eventlog.DecisionMade{CallID: "q1", Approved: true, Decider: "ops", Text: "blue"},
		eventlog.DecisionRequested{CallID: "c2", Name: "send_email", Kind: eventlog.NeedApproval},
		eventlog.DecisionMade{CallID: "c2", Approved: true, Decider: "ops"},
		eventlog.ContextPruned{CallIDs: []string{"c0"}},
		eventlog.TurnEnd{Turn: 1, Reason: eventlog.EndCompleted},
		eventlog.ModelSelected{Selection: eventlog.Selection{Provider: "scripted", Model: "scripted-demo"}, Resolved: true},
		eventlog.MaintenanceQueued{Task: "compact"},
		eventlog.ContextCompacted{Text: "They talked.", Keep: 2},
		eventlog.MaintenanceDone{Task: "compact", Before: 900, After: 120},
		eventlog.ModelSelected{Selection: eventlog.Selection{Provider: "nope"}, Refused: `provider "nope" is not offered`},
		eventlog.ModelSelected{Selection: eventlog.Selection{Provider: "openai", Model: "gpt-4o", Effort: "low"}},
	}
	var log []eventlog.Envelope
	for i, e := range evs {
		env, err := eventlog.Encode(int64(i), time.Unix(0, 0), "", e)
		require.NoError(t, err)
		log = append(log, env)
	}
	var out bytes.Buffer
	require.NoError(t, WriteTranscript(&out, "a1", log))
	require.Equal(t, `── turn 1 ──
user:        go
user steer:  faster
user inject: fyi
parent a0 steer: hurry
waiting:     answer of call q1 (ask_human)
answered:    call q1 by ops: blue
waiting:     approval of call c2 (send_email)
decided:     call c2 approved by ops
pruned:      1 old tool result(s) from the model's context
── turn 1 completed ──
model:       runs on scripted/scripted-demo (the worker's default)
compacted:   context summarised, the last 2 message(s) kept: They talked.
compact:     context ~900 → ~120 tokens
model:       switch to nope/default refused: provider "nope" is not offered
model:       switched to openai/gpt-4o (effort low) from the next step
`, out.String())
}
