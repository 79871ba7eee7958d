package openai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/eventlog"
)

func TestCompleteSendsConvertedRequest(t *testing.T) {
	tests := []struct {
		name  string
		model string // provider default
		req   llm.Request
		want  string // JSON body the server must receive
	}{
		{
			name:  "system and user messages use the default model",
			model: "gpt-4o",
			req: llm.Request{Messages: []eventlog.Message{
				{Role: eventlog.RoleSystem, Content: "Be brief."},
				{Role: eventlog.RoleUser, Content: "Capital of France?"},
			}},
			want: `{"model":"gpt-4o","messages":[
				{"role":"system","content":"Be brief."},
				{"role":"user","content":"Capital of France?"}]}`,
		},
		{
			name:  "request model wins and max tokens becomes max_completion_tokens",
			model: "gpt-4o",
			req: llm.Request{Model: "gpt-4.1", MaxTokens: 256, Messages: []eventlog.Message{
				{Role: eventlog.RoleUser, Content: "hi"},
			}},
			want: `{"model":"gpt-4.1","max_completion_tokens":256,"messages":[{"role":"user","content":"hi"}]}`,
		},
		{
			name:  "effort becomes reasoning_effort",
			model: "o4-mini",
			req:   llm.Request{Effort: "low", Messages: []eventlog.Message{{Role: eventlog.RoleUser, Content: "hi"}}},
			want:  `{"model":"o4-mini","reasoning_effort":"low","messages":[{"role":"user","content":"hi"}]}`,
		},
		{
			name: "tool round trip carries tool calls, tool_call_id and tools",
			req: llm.Request{Model: "qwen3:8b", Messages: []eventlog.Message{
				{Role: eventlog.RoleUser, Content: "Weather and time in Paris?"},
				{Role: eventlog.RoleAssistant, Content: "Checking.", ToolCalls: []eventlog.ToolCallRequest{
					{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)},
					{ID: "call_2", Name: "get_time", Arguments: nil},
				}},
				{Role: eventlog.RoleTool, ToolCallID: "call_1", Name: "get_weather", Content: "18C, cloudy"},
				{Role: eventlog.RoleTool, ToolCallID: "call_2", Name: "get_time", Content: "boom", IsError: true},
			}, Tools: []llm.ToolSpec{
				{Name: "get_weather", Description: "Current weather.", Parameters: json.RawMessage(
					`{"type":"object","properties":{"location":{"type":"string","maxLength":12345678901234567890}},"required":["location"]}`)},
				{Name: "get_time"},
			}},
			want: `{"model":"qwen3:8b","messages":[
				{"role":"user","content":"Weather and time in Paris?"},
				{"role":"assistant","content":"Checking.","tool_calls":[
					{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}},
					{"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"call_1","content":"18C, cloudy"},
				{"role":"tool","tool_call_id":"call_2","content":"Error: boom"}],
			"tools":[
				{"type":"function","function":{"name":"get_weather","description":"Current weather.",
					"parameters":{"type":"object","properties":{"location":{"type":"string","maxLength":12345678901234567890}},"required":["location"]}}},
				{"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{}}}}]}`,
		},
		{
			name: "a failed tool result says it failed, once",
			req: llm.Request{Model: "m", Messages: []eventlog.Message{
				{Role: eventlog.RoleTool, ToolCallID: "c1", Content: `MCP server "files" refused tool "read": no such file`, IsError: true},
				{Role: eventlog.RoleTool, ToolCallID: "c2", Content: "Error: disk full", IsError: true},
				{Role: eventlog.RoleTool, ToolCallID: "c3", Content: "ERROR 42", IsError: true},
				{Role: eventlog.RoleTool, ToolCallID: "c4", IsError: true},
				{Role: eventlog.RoleTool, ToolCallID: "c5", Content: "no errors found"},
			}},
			want: `{"model":"m","messages":[
				{"role":"tool","tool_call_id":"c1","content":"Error: MCP server \"files\" refused tool \"read\": no such file"},
				{"role":"tool","tool_call_id":"c2","content":"Error: disk full"},
				{"role":"tool","tool_call_id":"c3","content":"ERROR 42"},
				{"role":"tool","tool_call_id":"c4","content":"Error"},
				{"role":"tool","tool_call_id":"c5","content":"no errors found"}]}`,
		},
		{
			name: "assistant with only tool calls omits content and resends non-JSON arguments verbatim",
			req: llm.Request{Model: "m", Messages: []eventlog.Message{
				{Role: eventlog.RoleAssistant, ToolCalls: []eventlog.ToolCallRequest{
					{ID: "call_9", Name: "search", Arguments: json.RawMessage(`"{query: unquoted}"`)},
				}},
			}},
			want: `{"model":"m","messages":[{"role":"assistant","tool_calls":[
				{"id":"call_9","type":"function","function":{"name":"search","arguments":"{query: unquoted}"}}]}]}`,
		},
		{
			name: "empty assistant message keeps empty content",
			req: llm.Request{Model: "m", Messages: []eventlog.Message{
				{Role: eventlog.RoleAssistant},
			}},
			want: `{"model":"m","messages":[{"role":"assistant","content":""}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, reply{status: 200, body: fixture(t, "chat_text.json")})
			p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: tt.model})

			_, err := p.Complete(context.Background(), tt.req)
			require.NoError(t, err)

			path, _, body := srv.received()
			require.Equal(t, "/v1/chat/completions", path)
			require.JSONEq(t, tt.want, string(body))
		})
	}
}

func TestCompleteSendsBearerKeyOnlyWhenConfigured(t *testing.T) {
	tests := []struct {
		name, key, want string
	}{
		{"key set", "sk-test-abc123", "Bearer sk-test-abc123"},
		{"local server without key", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, reply{status: 200, body: fixture(t, "chat_text.json")})
			p := newProvider(t, openai.Config{BaseURL: srv.URL, APIKey: tt.key, DefaultModel: "m"})

			_, err := p.Complete(context.Background(), llm.Request{Messages: []eventlog.Message{{Role: eventlog.RoleUser, Content: "hi"}}})
			require.NoError(t, err)

			_, header, _ := srv.received()
			require.Equal(t, tt.want, header.Get("Authorization"))
		})
	}
}

func TestCompleteIgnoresOpenAIEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_ORG_ID", "org-from-env")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Leak: yes")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	srv := serve(t, reply{status: 200, body: fixture(t, "chat_text.json")})
	p := newProvider(t, openai.Config{BaseURL: srv.URL, DefaultModel: "m"})

	_, err := p.Complete(context.Background(), hello)
	require.NoError(t, err)

	_, header, _ := srv.received()
	require.Empty(t, header.Get("Authorization"))
	require.Empty(t, header.Get("OpenAI-Organization"))
	require.Empty(t, header.Get("X-Leak"))
}

func TestCompleteRejectsUnsendableRequestsWithoutCallingServer(t *testing.T) {
	user := []eventlog.Message{{Role: eventlog.RoleUser, Content: "hi"}}
	tests := []struct {
		name string
		req  llm.Request
	}{
		{"no model anywhere", llm.Request{Messages: user}},
		{"unknown role", llm.Request{Model: "m", Messages: []eventlog.Message{{Role: "narrator", Content: "x"}}}},
		{"tool schema is an array", llm.Request{Model: "m", Messages: user, Tools: []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(`[1]`)}}}},
		{"tool schema is a string", llm.Request{Model: "m", Messages: user, Tools: []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(`"x"`)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, reply{status: 200, body: fixture(t, "chat_text.json")})
			p := newProvider(t, openai.Config{BaseURL: srv.URL})

			_, err := p.Complete(context.Background(), tt.req)

			require.IsType(t, &llm.Error{}, err)
			lerr, _ := llm.AsError(err)
			require.Equal(t, eventlog.FailureInvalidRequest, lerr.Failure.Kind)
			require.Zero(t, srv.calls.Load())
		})
	}
}

func TestNewValidatesConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     openai.Config
		wantErr bool
	}{
		{"openai", openai.Config{BaseURL: "https://api.openai.com/v1", APIKey: "sk-x", DefaultModel: "gpt-4o"}, false},
		{"ollama without key or model", openai.Config{BaseURL: "http://localhost:11434/v1"}, false},
		{"empty base url is the official API", openai.Config{APIKey: "sk-x"}, false},
		{"host without scheme", openai.Config{BaseURL: "localhost:11434/v1"}, true},
		{"ftp scheme", openai.Config{BaseURL: "ftp://example.com/v1"}, true},
		{"no host", openai.Config{BaseURL: "http:///v1"}, true},
		{"unparsable", openai.Config{BaseURL: "http://[::1"}, true},
		{"negative timeout", openai.Config{BaseURL: "http://localhost/v1", Timeout: -1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := openai.New(tt.cfg)
			if tt.wantErr {
				require.Error(t, err)
				require.Nil(t, p)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, p)
		})
	}
}
