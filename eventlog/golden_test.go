package eventlog

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files")

// samples holds one event of every type; the golden files lock their wire
// format. A change that breaks a golden file breaks stored logs.
var samples = map[Type]Event{
	TypeInboxInserted:  InboxInserted{MessageID: "m1", List: NextTurn, Content: "hello", Wake: true, From: &Initiator{Kind: ByChild, ID: "a1.child-7"}},
	TypeInboxClaimed:   InboxClaimed{MessageID: "m1", List: NextTurn, Turn: 1},
	TypeInboxDiscarded: InboxDiscarded{MessageID: "m2", List: NextStep, Outcome: DiscardCanceled, Cause: "user"},
	TypeMessageScheduled: MessageScheduled{MessageID: "m3", List: NextTurn, Content: "daily report", Wake: true,
		At: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)},
	TypeTurnStart:      TurnStart{Turn: 2, RetryOf: 1},
	TypeTurnEnd:        TurnEnd{Turn: 2, Reason: EndFailed, Error: "model call failed"},
	TypeStepStart:      StepStart{Turn: 2, Step: 1, Provider: "openai", Model: "gpt-4o-mini", Effort: "low"},
	TypeStepEnd:        StepEnd{Turn: 2, Step: 1},
	TypeSystemMessage:  SystemMessage{Content: "be brief"},
	TypeUserMessage:    UserMessage{MessageID: "m1", Content: "hello"},
	TypeRuntimeContext: RuntimeContext{Content: "cwd: /srv/app"},
	TypeAssistantMessage: AssistantMessage{
		Text: "let me look", ToolCalls: []ToolCallRequest{{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.txt"}`)}},
		Usage: Usage{InputTokens: 120, OutputTokens: 30, CachedTokens: 64}, FinishReason: FinishToolCalls,
		Provider: "openai", Model: "gpt-4o-mini", Stream: &StreamTiming{FirstMs: 180, Ms: 950, Chunks: 12},
	},
	TypeAssistantAttempt: AssistantAttempt{Failure: Failure{Kind: FailureRateLimit, Message: "slow down", StatusCode: 429, RetryAfter: 2 * time.Second},
		Stream: &StreamTiming{Ms: 40}},
	TypeToolCall:          ToolCall{CallID: "c1", Name: "read_file", IdempotencyKey: "a1/2/1/c1"},
	TypeToolResult:        ToolResult{CallID: "c1", Name: "read_file", Content: "tool call denied: policy", IsError: true, Outcome: ToolDenied},
	TypeStatus:            StatusChanged{Status: StatusRunning},
	TypeContextPruned:     ContextPruned{CallIDs: []string{"c1", "c2"}},
	TypeContextCompacted:  ContextCompacted{Text: "The user asked for X; we found Y.", Keep: 4},
	TypeModelSelected:     ModelSelected{Selection: Selection{Provider: "anthropic", Model: "claude-sonnet-4-5", Effort: "high"}},
	TypeTurnCanceling:     TurnCanceling{Turn: 3, Cause: "operator stop"},
	TypeAgentDisposing:    AgentDisposing{Cause: "session over"},
	TypeMaintenanceQueued: MaintenanceQueued{Task: "compact"},
	TypeMaintenanceDone:   MaintenanceDone{Task: "compact", Before: 9000, After: 1200},
	TypeRequestHeader:     RequestHeader{Provider: "openai", Model: "gpt-4o-mini", Effort: "low", MaxTokens: 1024, Tools: []string{"read_file", "clock"}},
	TypeRequestContext:    RequestContext{Messages: 7, Tokens: 2400},
	TypeChildStarted: ChildStarted{ChildID: "a1.child-7", CallID: "c1", Mode: ChildWait,
		Budget: ChildBudget{MaxTokens: 5000, MaxCost: 0.25}},
	TypeChildSettled: ChildSettled{ChildID: "a1.child-7", Turn: 1, Reason: EndCompleted, Text: "found it",
		Usage: Usage{InputTokens: 900, OutputTokens: 80}},
	TypeChildEnded: ChildEnded{ChildID: "a1.child-7", Status: "completed"},
	TypeDecisionRequested: DecisionRequested{CallID: "c2", Name: "send_email", Kind: NeedApproval,
		Since: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), Deadline: time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)},
	TypeDecisionMade: DecisionMade{CallID: "c2", Approved: false, Decider: "ops@example.com", Text: "not to customers"},
	TypeWaitStarted:  WaitStarted{CallID: "c3", Until: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)},
	TypeToolsListed: ToolsListed{Servers: []ServerTools{
		{Server: "files", Digest: "sha256:9f2c", Tools: []MCPTool{
			{Name: "read", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`), ReadOnly: true},
			{Name: "delete", Destructive: &yes, Idempotent: true},
		}},
		{Server: "search", Unchanged: true},
		{Server: "tickets", Error: "connect: connection refused"},
	}},
	TypeSessionForked: SessionForked{Source: "agent-a1", Run: "run-7", At: 41, ReplacedLast: "and in French?", Replaced: "and in German?",
		Dropped: []MessageID{"m8"}},
	TypeSessionRewound: SessionRewound{ToTurn: 2, At: 40, Past: 5, Keep: 6, Forget: true, By: "ops@example.com"},
	TypeSessionStarted: SessionStarted{Hooks: []string{"greeter", "audit"}, Errors: []string{"hook audit failed at session-start: store unreachable"}},
}

var yes = true

func TestGoldenWireFormat(t *testing.T) {
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	require.Len(t, samples, len(Types), "one sample per type")
	for i, typ := range Types {
		t.Run(string(typ), func(t *testing.T) {
			env, err := Encode(int64(i), at, "", samples[typ])
			require.NoError(t, err)
			got, err := json.MarshalIndent(env, "", "  ")
			require.NoError(t, err)
			path := filepath.Join("testdata", "events", strings.ReplaceAll(string(typ), "/", "_")+".json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, append(got, '\n'), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./eventlog -update to create golden files")
			require.JSONEq(t, string(want), string(got))

			var compact bytes.Buffer
			require.NoError(t, json.Compact(&compact, want))
			var back Envelope
			require.NoError(t, json.Unmarshal(compact.Bytes(), &back))
			e, err := Decode(back)
			require.NoError(t, err)
			require.Equal(t, samples[typ], e)
		})
	}
}

func TestDecodeUnknownTypeFailsTyped(t *testing.T) {
	_, err := Decode(Envelope{Seq: 3, Type: "agent/teleported", Data: json.RawMessage(`{}`)})
	require.ErrorIs(t, err, ErrUnknownType)
}

func TestStripAndRestoreRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		ev      Event
		ref     Ref
		content string
	}{
		{"inserted keeps list and wake", samples[TypeInboxInserted], MessageRef("m1"), "hello"},
		{"user message", samples[TypeUserMessage], MessageRef("m1"), "hello"},
		{"scheduled keeps list, wake and time", samples[TypeMessageScheduled], MessageRef("m3"), "daily report"},
		{"delivered by its timer", InboxInserted{MessageID: "m3", List: NextTurn, Content: "daily report", Wake: true,
			From: &Initiator{Kind: ByTimer}}, MessageRef("m3"), "daily report"},
		{"system prompt", samples[TypeSystemMessage], SystemPromptRef, "be brief"},
		{"assistant from activity", samples[TypeAssistantMessage], ActivityRef("model-2-1"), ""},
		{"tool result from activity", samples[TypeToolResult], ActivityRef("tool-2-1-0"), ""},
		{"no ref stays whole", samples[TypeTurnEnd], "", ""},
		{"child report's answer", samples[TypeChildSettled], MessageRef("a1.child-7#1"), "found it"},
		{"decision's text", samples[TypeDecisionMade], MessageRef("d-1"), "not to customers"},
		{"a tool result that is a person's answer", ToolResult{CallID: "c4", Name: "ask_human", Content: "blue"}, MessageRef("d-2"), "blue"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env, err := Encode(1, at, tc.ref, tc.ev)
			require.NoError(t, err)
			j, err := Strip(env)
			require.NoError(t, err)
			if tc.content != "" {
				require.NotContains(t, string(j.Data), tc.content)
			}
			whole := json.RawMessage(nil)
			if k, _, _ := tc.ref.Split(); k == RefActivity {
				require.Empty(t, j.Data)
				whole = env.Data
			}
			back, err := Restore(j, tc.content, whole)
			require.NoError(t, err)
			e, err := Decode(back)
			require.NoError(t, err)
			require.Equal(t, tc.ev, e)
		})
	}
}

func TestCompactionSummaryIsRestoredFromTheSummarizingCallsResult(t *testing.T) {
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	ev := ContextCompacted{Text: "we agreed on Y", Keep: 3}
	env, err := Encode(5, at, ActivityRef("compact-4-2-1"), ev)
	require.NoError(t, err)
	j, err := Strip(env)
	require.NoError(t, err)
	require.NotContains(t, string(j.Data), "we agreed")
	result, err := json.Marshal(AssistantMessage{Text: "we agreed on Y", FinishReason: FinishStop, Usage: Usage{InputTokens: 9}})
	require.NoError(t, err)
	back, err := Restore(j, "", result)
	require.NoError(t, err)
	got, err := Decode(back)
	require.NoError(t, err)
	require.Equal(t, ev, got)
}

func TestConversationAppliesPruningAndCompaction(t *testing.T) {
	calls := []ToolCallRequest{{ID: "c1", Name: "t"}}
	msgs := ConversationOf([]Event{
		SystemMessage{Content: "sys"},
		UserMessage{Content: "q1"}, AssistantMessage{ToolCalls: calls}, ToolResult{CallID: "c1", Name: "t", Content: "big"},
		AssistantMessage{Text: "a1"},
		ContextPruned{CallIDs: []string{"c1"}},
		UserMessage{Content: "q2"}, AssistantMessage{Text: "a2"},
		ContextCompacted{Text: "q1 was answered", Keep: 2},
	})
	require.Equal(t, []Message{
		{Role: RoleSystem, Content: "sys"},
		{Role: RoleUser, Content: SummaryPrefix + "q1 was answered"},
		{Role: RoleUser, Content: "q2"}, {Role: RoleAssistant, Content: "a2"},
	}, msgs)
	pruned := ConversationOf([]Event{UserMessage{Content: "q"}, AssistantMessage{ToolCalls: calls},
		ToolResult{CallID: "c1", Name: "t", Content: "big"}, ContextPruned{CallIDs: []string{"c1"}}})
	require.Equal(t, PrunedNotice, pruned[2].Content)
}
