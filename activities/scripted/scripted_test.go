package scripted_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/eventlog"
)

func user(content string) eventlog.Message {
	return eventlog.Message{Role: eventlog.RoleUser, Content: content}
}

func answered(text string) eventlog.Message {
	return eventlog.Message{Role: eventlog.RoleAssistant, Content: text}
}

func asked(calls ...eventlog.ToolCallRequest) eventlog.Message {
	return eventlog.Message{Role: eventlog.RoleAssistant, ToolCalls: calls}
}

func result(c eventlog.ToolCallRequest, content string, isError bool) eventlog.Message {
	return eventlog.Message{Role: eventlog.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: content, IsError: isError}
}

func tc(id, name, args string) eventlog.ToolCallRequest {
	return eventlog.ToolCallRequest{ID: id, Name: name, Arguments: []byte(args)}
}

func offered(names ...string) []llm.ToolSpec {
	specs := make([]llm.ToolSpec, len(names))
	for i, n := range names {
		specs[i] = llm.ToolSpec{Name: n, Description: n, Parameters: []byte(`{"type":"object"}`)}
	}
	return specs
}

func callsOf(calls ...eventlog.ToolCallRequest) eventlog.AssistantMessage {
	return eventlog.AssistantMessage{ToolCalls: calls, FinishReason: eventlog.FinishToolCalls}
}

func answer(text string) eventlog.AssistantMessage {
	return eventlog.AssistantMessage{Text: text, FinishReason: eventlog.FinishStop}
}

var allTools = offered("current_time", "read_file", "list_files", "calculate")

// complete runs the provider and checks what every successful reply shares:
// positive usage and the model name. It returns the reply without usage.
func complete(t *testing.T, req llm.Request) eventlog.AssistantMessage {
	t.Helper()
	got, err := scripted.Provider{}.Complete(context.Background(), req)
	require.NoError(t, err)
	require.Positive(t, got.Usage.InputTokens)
	require.Positive(t, got.Usage.OutputTokens)
	wantModel := req.Model
	if wantModel == "" {
		wantModel = "scripted-demo"
	}
	require.Equal(t, wantModel, got.Model)
	got.Usage, got.Model = eventlog.Usage{}, ""
	return got
}

func TestCompleteFollowsDirectives(t *testing.T) {
	read := tc("call_1_0", "read_file", `{"path":"a.txt"}`)
	clock := tc("call_1_1", "current_time", `{}`)
	echo1 := tc("call_1_0", "echo", `{"text":"hi"}`)
	echo2 := tc("call_2_0", "echo", `{"text":"hi"}`)
	tests := []struct {
		name  string
		msgs  []eventlog.Message
		tools []llm.ToolSpec
		want  eventlog.AssistantMessage
	}{
		{
			name: "tool lines are parallel calls with deterministic IDs and args",
			msgs: []eventlog.Message{user("/tool read_file {\"path\":\"a.txt\"}\n/tool current_time")},
			want: callsOf(read, clock),
		},
		{
			name:  "tool directives call tools that are not offered",
			msgs:  []eventlog.Message{user("/tool read_file {\"path\":\"a.txt\"}\n/tool current_time")},
			tools: offered("calculate"),
			want:  callsOf(read, clock),
		},
		{
			name: "tool directive args that are not JSON become a JSON string",
			msgs: []eventlog.Message{user("/tool echo not json")},
			want: callsOf(tc("call_1_0", "echo", `"not json"`)),
		},
		{
			name: "call IDs count earlier assistant messages",
			msgs: []eventlog.Message{user("hi"), answered("hello"), user("/tool echo {}")},
			want: callsOf(tc("call_2_0", "echo", `{}`)),
		},
		{
			name: "tool directive answers after its results",
			msgs: []eventlog.Message{user("/tool echo {\"text\":\"hi\"}"), asked(echo1), result(echo1, "hi", false)},
			want: answer("I used 1 tool call(s).\n- echo returned: hi"),
		},
		{
			name: "repeat calls in the first step",
			msgs: []eventlog.Message{user("/repeat 2 echo {\"text\":\"hi\"}")},
			want: callsOf(echo1),
		},
		{
			name: "repeat calls again until N steps",
			msgs: []eventlog.Message{user("/repeat 2 echo {\"text\":\"hi\"}"), asked(echo1), result(echo1, "one", false)},
			want: callsOf(echo2),
		},
		{
			name: "repeat answers after N steps",
			msgs: []eventlog.Message{
				user("/repeat 2 echo {\"text\":\"hi\"}"),
				asked(echo1), result(echo1, "one", false),
				asked(echo2), result(echo2, "two", false),
			},
			want: answer("I used 2 tool call(s).\n- echo returned: one\n- echo returned: two"),
		},
		{
			name:  "say answers without calling tools",
			msgs:  []eventlog.Message{user("what time is it?\n/say It is noon.")},
			tools: allTools,
			want:  answer("It is noon."),
		},
		{
			name: "directives are read from the latest prompt only",
			msgs: []eventlog.Message{user("/say first"), answered("first"), user("/say second")},
			want: answer("second"),
		},
		{
			name: "a steer joins the prompt",
			msgs: []eventlog.Message{
				user("/tool echo {\"text\":\"hi\"}"), asked(echo1), result(echo1, "hi", false), user("/say steered"),
			},
			want: answer("steered"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := complete(t, llm.Request{Messages: tt.msgs, Tools: tt.tools})
			require.Equal(t, tt.want, got)
		})
	}
}

func TestCompletePicksOfferedToolsByKeyword(t *testing.T) {
	tests := []struct {
		name   string
		prompt string
		tools  []llm.ToolSpec
		want   eventlog.AssistantMessage
	}{
		{"time", "What time is it?", allTools,
			callsOf(tc("call_1_0", "current_time", `{}`))},
		{"file mention", "Summarise README.md for me", allTools,
			callsOf(tc("call_1_0", "read_file", `{"path":"README.md"}`))},
		{"files without a name", "Which files are there?", allTools,
			callsOf(tc("call_1_0", "list_files", `{}`))},
		{"arithmetic", "What is 17*23?", allTools,
			callsOf(tc("call_1_0", "calculate", `{"expression":"17*23"}`))},
		{"several keywords in rule order", "Compute 17*23, read notes.txt and tell me the time", allTools,
			callsOf(
				tc("call_1_0", "current_time", `{}`),
				tc("call_1_1", "read_file", `{"path":"notes.txt"}`),
				tc("call_1_2", "calculate", `{"expression":"17*23"}`),
			)},
		{"only offered tools", "What is 17*23 in README.md at this time?", offered("read_file"),
			callsOf(tc("call_1_0", "read_file", `{"path":"README.md"}`))},
		{"no keyword falls back to the clock when offered", "hello", allTools,
			callsOf(tc("call_1_0", "current_time", `{}`))},
		{"nothing offered fits", "What is 17*23?", offered("read_file"),
			answer("Scripted model (no API key configured). You said: What is 17*23?")},
		{"short prompt", "hi", nil,
			answer("Scripted model (no API key configured). You said: hi")},
		{"no tools offered", "What is 17*23?", nil,
			answer("Scripted model (no API key configured). You said: What is 17*23?")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := complete(t, llm.Request{Messages: []eventlog.Message{user(tt.prompt)}, Tools: tt.tools})
			require.Equal(t, tt.want, got)
		})
	}
}

func TestCompleteSaysItIsScriptedWithoutTools(t *testing.T) {
	got := complete(t, llm.Request{
		Model:    "gpt-pretend",
		Messages: []eventlog.Message{{Role: eventlog.RoleSystem, Content: "be brief"}, user("  who are you?  ")},
	})
	require.Empty(t, got.ToolCalls)
	require.Equal(t, eventlog.FinishStop, got.FinishReason)
	require.Contains(t, got.Text, "Scripted model")
	require.True(t, strings.HasSuffix(got.Text, "You said: who are you?"), got.Text)
}

func TestCompleteSummarisesToolResults(t *testing.T) {
	clock := tc("call_1_0", "current_time", `{}`)
	calc := tc("call_1_1", "calculate", `{"expression":"17/0"}`)
	got := complete(t, llm.Request{
		Messages: []eventlog.Message{
			user("What time is it, and what is 17/0?"),
			asked(clock, calc),
			result(clock, "2025-01-02T03:04:05Z", false),
			result(calc, "division by zero", true),
		},
		Tools: allTools,
	})
	require.Equal(t, answer("I used 2 tool call(s).\n"+
		"- current_time returned: 2025-01-02T03:04:05Z\n"+
		"- calculate failed with: division by zero"), got)
}

func TestCompleteClipsLongToolResultsInSummary(t *testing.T) {
	read := tc("call_1_0", "read_file", `{"path":"big.txt"}`)
	long := "a" + strings.Repeat("é", 400) // byte 300 falls inside an é
	got := complete(t, llm.Request{
		Messages: []eventlog.Message{user("read big.txt"), asked(read), result(read, long, false)},
		Tools:    allTools,
	})
	line := strings.TrimPrefix(got.Text, "I used 1 tool call(s).\n- read_file returned: ")
	require.Equal(t, "a"+strings.Repeat("é", 149)+"…", line)
}

func TestCompleteFailures(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name       string
		ctx        context.Context
		msgs       []eventlog.Message
		wantKind   eventlog.FailureKind
		wantStatus int
	}{
		{"no messages", context.Background(), nil, eventlog.FailureInvalidRequest, 400},
		{"only a system prompt", context.Background(),
			[]eventlog.Message{{Role: eventlog.RoleSystem, Content: "be brief"}}, eventlog.FailureInvalidRequest, 400},
		{"prompt already answered", context.Background(),
			[]eventlog.Message{user("hi"), answered("hello")}, eventlog.FailureInvalidRequest, 400},
		{"canceled context", canceled, []eventlog.Message{user("hi")}, eventlog.FailureCanceled, 0},
	}
	for _, kind := range eventlog.FailureKinds {
		tests = append(tests, struct {
			name       string
			ctx        context.Context
			msgs       []eventlog.Message
			wantKind   eventlog.FailureKind
			wantStatus int
		}{"fail " + string(kind), context.Background(), []eventlog.Message{user("hi\n/fail " + string(kind))}, kind, 0})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scripted.Provider{}.Complete(tt.ctx, llm.Request{Messages: tt.msgs, Tools: allTools})
			require.Error(t, err)
			var lerr *llm.Error
			require.True(t, errors.As(err, &lerr), "want *llm.Error, got %T", err)
			require.Equal(t, tt.wantKind, lerr.Failure.Kind)
			require.Equal(t, tt.wantStatus, lerr.Failure.StatusCode)
			require.NotEmpty(t, lerr.Failure.Message)
		})
	}
}

func TestCompleteCanceledWrapsContextError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := scripted.Provider{}.Complete(ctx, llm.Request{Messages: []eventlog.Message{user("hi")}})
	require.ErrorIs(t, err, context.Canceled)
}

func TestCompleteIsDeterministic(t *testing.T) {
	req := llm.Request{Messages: []eventlog.Message{user("time, README.md and 17*23 please")}, Tools: allTools}
	first, err := scripted.Provider{}.Complete(context.Background(), req)
	require.NoError(t, err)
	second, err := scripted.Provider{}.Complete(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, first, second)
	require.Len(t, first.ToolCalls, 3)
}

func TestFailDirectiveWithUnknownKindIsAnInvalidRequest(t *testing.T) {
	_, err := scripted.Provider{}.Complete(context.Background(), llm.Request{
		Messages: []eventlog.Message{{Role: eventlog.RoleUser, Content: "/fail bogus"}},
	})
	e, ok := llm.AsError(err)
	require.True(t, ok)
	require.Equal(t, eventlog.FailureInvalidRequest, e.Failure.Kind)
	require.Contains(t, e.Failure.Message, "unknown failure kind bogus")
}

func TestStreamEmitsTheAnswerWordByWordAndReturnsWhatCompleteReturns(t *testing.T) {
	req := llm.Request{Messages: []eventlog.Message{{Role: eventlog.RoleUser, Content: "/say one two three"}}}
	var text strings.Builder
	n := 0
	got, err := scripted.Provider{}.Stream(context.Background(), req, func(c llm.Chunk) {
		n++
		text.WriteString(c.Text)
	})
	require.NoError(t, err)
	want, err := scripted.Provider{}.Complete(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, 3, n)
	require.Equal(t, "one two three", text.String())
}
