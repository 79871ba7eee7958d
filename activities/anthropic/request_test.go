package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/anthropic"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

func TestCompleteSendsConvertedRequest(t *testing.T) {
	weather := eventlog.ToolCallRequest{ID: "toolu_1", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)}
	clock := eventlog.ToolCallRequest{ID: "toolu_2", Name: "get_time"}
	tests := []struct {
		name string
		req  llm.Request
		want string // JSON body the server must receive
	}{
		{
			name: "system messages join into system; default model and max tokens apply",
			req: llm.Request{Messages: []eventlog.Message{
				{Role: eventlog.RoleSystem, Content: "Be brief."},
				{Role: eventlog.RoleSystem, Content: "Answer in French."},
				{Role: eventlog.RoleUser, Content: "Capital of France?"},
			}},
			want: `{"model":"claude-default","max_tokens":4096,
				"system":[{"type":"text","text":"Be brief.\n\nAnswer in French."}],
				"messages":[{"role":"user","content":[{"type":"text","text":"Capital of France?"}]}]}`,
		},
		{
			name: "request model and max tokens win",
			req:  llm.Request{Model: "claude-haiku-4-5", MaxTokens: 256, Messages: hello.Messages},
			want: `{"model":"claude-haiku-4-5","max_tokens":256,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
		},
		{
			name: "tool results share one user turn with the user text after them; tools carry input_schema",
			req: llm.Request{Messages: []eventlog.Message{
				{Role: eventlog.RoleUser, Content: "Weather and time in Paris?"},
				{Role: eventlog.RoleAssistant, Content: "Checking.", ToolCalls: []eventlog.ToolCallRequest{weather, clock}},
				{Role: eventlog.RoleTool, ToolCallID: "toolu_1", Name: "get_weather", Content: "18C, cloudy"},
				{Role: eventlog.RoleTool, ToolCallID: "toolu_2", Name: "get_time", Content: "boom", IsError: true},
				{Role: eventlog.RoleUser, Content: "And in Rome?"},
			}, Tools: []llm.ToolSpec{
				{Name: "get_weather", Description: "Current weather.", Parameters: json.RawMessage(
					`{"type":"object","properties":{"location":{"type":"string","maxLength":12345678901234567890}},"required":["location"]}`)},
				{Name: "get_time"},
			}},
			want: `{"model":"claude-default","max_tokens":4096,"messages":[
				{"role":"user","content":[{"type":"text","text":"Weather and time in Paris?"}]},
				{"role":"assistant","content":[
					{"type":"text","text":"Checking."},
					{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Paris"}},
					{"type":"tool_use","id":"toolu_2","name":"get_time","input":{}}]},
				{"role":"user","content":[
					{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"18C, cloudy"}]},
					{"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"boom"}],"is_error":true},
					{"type":"text","text":"And in Rome?"}]}],
			"tools":[
				{"name":"get_weather","description":"Current weather.","input_schema":
					{"type":"object","properties":{"location":{"type":"string","maxLength":12345678901234567890}},"required":["location"]}},
				{"name":"get_time","input_schema":{"type":"object","properties":{}}}]}`,
		},
		{
			name: "user text arriving between tool results goes after all of them",
			req: llm.Request{Messages: []eventlog.Message{
				{Role: eventlog.RoleUser, Content: "Go."},
				{Role: eventlog.RoleAssistant, ToolCalls: []eventlog.ToolCallRequest{weather, clock}},
				{Role: eventlog.RoleTool, ToolCallID: "toolu_1", Content: "18C"},
				{Role: eventlog.RoleUser, Content: "Hurry up."},
				{Role: eventlog.RoleTool, ToolCallID: "toolu_2", Content: ""},
			}},
			want: `{"model":"claude-default","max_tokens":4096,"messages":[
				{"role":"user","content":[{"type":"text","text":"Go."}]},
				{"role":"assistant","content":[
					{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Paris"}},
					{"type":"tool_use","id":"toolu_2","name":"get_time","input":{}}]},
				{"role":"user","content":[
					{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"18C"}]},
					{"type":"tool_result","tool_use_id":"toolu_2"},
					{"type":"text","text":"Hurry up."}]}]}`,
		},
		{
			name: "arguments that are not a JSON object are sent as an object holding them",
			req: llm.Request{Messages: []eventlog.Message{
				{Role: eventlog.RoleUser, Content: "Search."},
				{Role: eventlog.RoleAssistant, ToolCalls: []eventlog.ToolCallRequest{
					{ID: "c1", Name: "search", Arguments: json.RawMessage(`"{query: unquoted}"`)},
					{ID: "c2", Name: "sum", Arguments: json.RawMessage(` [1, 2] `)},
					{ID: "c3", Name: "broken", Arguments: json.RawMessage(`{"a":`)},
					{ID: "c4", Name: "nothing", Arguments: json.RawMessage(`null`)},
				}},
			}},
			want: `{"model":"claude-default","max_tokens":4096,"messages":[
				{"role":"user","content":[{"type":"text","text":"Search."}]},
				{"role":"assistant","content":[
					{"type":"tool_use","id":"c1","name":"search","input":{"arguments":"{query: unquoted}"}},
					{"type":"tool_use","id":"c2","name":"sum","input":{"arguments":[1, 2]}},
					{"type":"tool_use","id":"c3","name":"broken","input":{"arguments":"{\"a\":"}},
					{"type":"tool_use","id":"c4","name":"nothing","input":{}}]}]}`,
		},
		{
			name: "empty messages are dropped and the neighbours merge so roles alternate",
			req: llm.Request{Messages: []eventlog.Message{
				{Role: eventlog.RoleSystem, Content: ""},
				{Role: eventlog.RoleUser, Content: "hi"},
				{Role: eventlog.RoleAssistant},
				{Role: eventlog.RoleUser, Content: ""},
				{Role: eventlog.RoleUser, Content: "anyone?"},
			}},
			want: `{"model":"claude-default","max_tokens":4096,"messages":[
				{"role":"user","content":[{"type":"text","text":"hi"},{"type":"text","text":"anyone?"}]}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, reply{status: 200, body: fixture(t, "messages_text.json")})
			p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "claude-default"})

			_, err := p.Complete(context.Background(), tt.req)
			require.NoError(t, err)

			path, _, body := srv.received()
			require.Equal(t, "/v1/messages", path)
			// Where the cache breakpoints go is cache_test.go's to prove.
			require.JSONEq(t, tt.want, withoutCacheControl(t, body))
		})
	}
}

func TestCompleteMapsEffortToThinkingBudget(t *testing.T) {
	loop := []eventlog.Message{
		{Role: eventlog.RoleUser, Content: "Weather?"},
		{Role: eventlog.RoleAssistant, ToolCalls: []eventlog.ToolCallRequest{{ID: "t1", Name: "w", Arguments: json.RawMessage(`{}`)}}},
		{Role: eventlog.RoleTool, ToolCallID: "t1", Content: "sunny"},
	}
	afterLoop := append(append([]eventlog.Message(nil), loop...),
		eventlog.Message{Role: eventlog.RoleAssistant, Content: "Sunny."},
		eventlog.Message{Role: eventlog.RoleUser, Content: "Thanks. Tomorrow?"})
	tests := []struct {
		name         string
		req          llm.Request
		wantThinking string // JSON, or "" for none
		wantMax      int
	}{
		{"no effort, no thinking", llm.Request{Messages: hello.Messages}, "", 4096},
		{"low fits under the default cap", llm.Request{Effort: "low", Messages: hello.Messages},
			`{"type":"enabled","budget_tokens":1024}`, 4096},
		{"medium at the cap raises it by the budget", llm.Request{Effort: "medium", Messages: hello.Messages},
			`{"type":"enabled","budget_tokens":4096}`, 8192},
		{"high over a small cap keeps the cap for the answer", llm.Request{Effort: "high", MaxTokens: 1000, Messages: hello.Messages},
			`{"type":"enabled","budget_tokens":16384}`, 17384},
		{"high under a large cap keeps the cap", llm.Request{Effort: "high", MaxTokens: 20000, Messages: hello.Messages},
			`{"type":"enabled","budget_tokens":16384}`, 20000},
		{"continuing a tool loop drops thinking", llm.Request{Effort: "high", Messages: loop}, "", 4096},
		{"a new turn after a finished loop thinks again", llm.Request{Effort: "high", Messages: afterLoop},
			`{"type":"enabled","budget_tokens":16384}`, 20480},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, reply{status: 200, body: fixture(t, "messages_text.json")})
			p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "claude-sonnet-4-5"})

			_, err := p.Complete(context.Background(), tt.req)
			require.NoError(t, err)

			_, _, body := srv.received()
			var got struct {
				MaxTokens int             `json:"max_tokens"`
				Thinking  json.RawMessage `json:"thinking"`
			}
			require.NoError(t, json.Unmarshal(body, &got))
			require.Equal(t, tt.wantMax, got.MaxTokens)
			if tt.wantThinking == "" {
				require.Nil(t, got.Thinking)
				return
			}
			require.JSONEq(t, tt.wantThinking, string(got.Thinking))
		})
	}
}

func TestStreamSendsTheCompleteRequestWithStreamSet(t *testing.T) {
	req := llm.Request{Effort: "low", Messages: []eventlog.Message{
		{Role: eventlog.RoleSystem, Content: "Be brief."},
		{Role: eventlog.RoleUser, Content: "hi"},
	}, Tools: []llm.ToolSpec{{Name: "get_time"}}}
	plain := serve(t, reply{status: 200, body: fixture(t, "messages_text.json")})
	streamed := serve(t, reply{status: 200, body: fixture(t, "stream_text.sse")})

	_, err := newProvider(t, anthropic.Config{BaseURL: plain.URL, DefaultModel: "m"}).Complete(context.Background(), req)
	require.NoError(t, err)
	_, err = newProvider(t, anthropic.Config{BaseURL: streamed.URL, DefaultModel: "m"}).Stream(context.Background(), req, nil)
	require.NoError(t, err)

	_, _, want := plain.received()
	path, header, got := streamed.received()
	var body map[string]any
	require.NoError(t, json.Unmarshal(got, &body))
	require.Equal(t, true, body["stream"])
	delete(body, "stream")
	gotWithout, _ := json.Marshal(body)
	require.JSONEq(t, string(want), string(gotWithout))
	require.Equal(t, "/v1/messages", path)
	require.Equal(t, "application/json", header.Get("Content-Type"))
}

func TestCompleteSendsHeadersAndHonoursBasePath(t *testing.T) {
	srv := serve(t, reply{status: 200, body: fixture(t, "messages_text.json")})
	p := newProvider(t, anthropic.Config{BaseURL: srv.URL + "/gateway/anthropic", APIKey: "sk-ant-test", DefaultModel: "m"})

	_, err := p.Complete(context.Background(), hello)
	require.NoError(t, err)

	path, header, _ := srv.received()
	require.Equal(t, "/gateway/anthropic/v1/messages", path)
	require.Equal(t, "sk-ant-test", header.Get("X-Api-Key"))
	require.Equal(t, "2023-06-01", header.Get("Anthropic-Version"))
	require.Empty(t, header.Get("Authorization"))
}

func TestCompleteIgnoresAnthropicEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "token-from-env")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Leak: yes")
	t.Setenv("ANTHROPIC_PROFILE", "no-such-profile")
	t.Setenv("ANTHROPIC_CONFIG_DIR", t.TempDir())
	for _, c := range bothCalls {
		t.Run(c.name, func(t *testing.T) {
			body := "messages_text.json"
			if c.name == "stream" {
				body = "stream_text.sse"
			}
			srv := serve(t, reply{status: 200, body: fixture(t, body)})
			p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m"})

			_, err := c.do(p, context.Background(), hello)
			require.NoError(t, err)

			_, header, _ := srv.received()
			require.Empty(t, header.Get("X-Api-Key"))
			require.Empty(t, header.Get("Authorization"))
			require.Empty(t, header.Get("X-Leak"))
		})
	}
}

func TestCallsRejectUnsendableRequestsWithoutCallingServer(t *testing.T) {
	user := hello.Messages
	tests := []struct {
		name string
		req  llm.Request
	}{
		{"no model anywhere", llm.Request{Model: "", Messages: user}},
		{"unknown role", llm.Request{Model: "m", Messages: []eventlog.Message{{Role: "narrator", Content: "x"}}}},
		{"only a system prompt", llm.Request{Model: "m", Messages: []eventlog.Message{{Role: eventlog.RoleSystem, Content: "x"}}}},
		{"unknown effort", llm.Request{Model: "m", Effort: "extreme", Messages: user}},
		{"tool schema is an array", llm.Request{Model: "m", Messages: user, Tools: []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(`[1]`)}}}},
		{"tool schema is not of type object", llm.Request{Model: "m", Messages: user, Tools: []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{"type":"string"}`)}}}},
	}
	for _, tt := range tests {
		for _, c := range bothCalls {
			t.Run(tt.name+"/"+c.name, func(t *testing.T) {
				srv := serve(t, reply{status: 200, body: fixture(t, "messages_text.json")})
				p := newProvider(t, anthropic.Config{BaseURL: srv.URL})

				_, err := c.do(p, context.Background(), tt.req)

				require.Equal(t, eventlog.FailureInvalidRequest, requireFailure(t, err).Kind)
				require.Zero(t, srv.calls.Load())
			})
		}
	}
}

func TestCompleteRefusesOutputTooLongForOneResponseButStreamSendsIt(t *testing.T) {
	req := llm.Request{Model: "claude-sonnet-4-5", MaxTokens: 64000, Messages: hello.Messages}
	srv := serve(t, reply{status: 200, body: fixture(t, "stream_text.sse")})
	p := newProvider(t, anthropic.Config{BaseURL: srv.URL})

	_, err := p.Complete(context.Background(), req)

	f := requireFailure(t, err)
	require.Equal(t, eventlog.FailureInvalidRequest, f.Kind)
	require.Contains(t, f.Message, "max_tokens 64000")
	require.Zero(t, srv.calls.Load())

	_, err = p.Stream(context.Background(), req, nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, srv.calls.Load())
}

func TestNewValidatesConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     anthropic.Config
		wantErr bool
	}{
		{"defaults", anthropic.Config{APIKey: "sk-ant-x", DefaultModel: "claude-sonnet-4-5"}, false},
		{"gateway without key", anthropic.Config{BaseURL: "http://localhost:8080/anthropic"}, false},
		{"host without scheme", anthropic.Config{BaseURL: "api.anthropic.com"}, true},
		{"ftp scheme", anthropic.Config{BaseURL: "ftp://example.com"}, true},
		{"no host", anthropic.Config{BaseURL: "https:///v1"}, true},
		{"unparsable", anthropic.Config{BaseURL: "http://[::1"}, true},
		{"negative max tokens", anthropic.Config{DefaultMaxTokens: -1}, true},
		{"negative timeout", anthropic.Config{Timeout: -1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := anthropic.New(tt.cfg)
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

func TestNewDefaultsMaxTokensFromConfig(t *testing.T) {
	srv := serve(t, reply{status: 200, body: fixture(t, "messages_text.json")})
	p := newProvider(t, anthropic.Config{BaseURL: srv.URL, DefaultModel: "m", DefaultMaxTokens: 1234})

	_, err := p.Complete(context.Background(), hello)
	require.NoError(t, err)

	_, _, body := srv.received()
	require.Contains(t, string(body), `"max_tokens":1234`)
}
