package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

const secretKey = "sk-tether-test-5f1d9c0a7b3e4d21"

// fakeOpenAI speaks the chat completions streaming wire protocol (the worker
// streams when a provider can): it asks for the echo tool when the last
// message is the user's and answers after the result.
// A request whose prompt says "fail" gets a 401 that echoes the key back,
// as some proxies do.
func fakeOpenAI(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "Bearer "+secretKey, r.Header.Get("Authorization"))
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Stream   bool `json:"stream"`
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(body, &req))
		last := req.Messages[len(req.Messages)-1]
		w.Header().Set("Content-Type", "application/json")
		switch {
		case last.Role == "user" && bytes.Contains(body, []byte("fail")):
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error","code":"invalid_api_key"}}`, secretKey)
		case last.Role == "user" && req.Stream:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"echo","arguments":""}}]}}]}`+"\n\n")
			fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"text\":\"hi\"}"}}]},"finish_reason":"tool_calls"}]}`+"\n\n")
			fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`+"\n\ndata: [DONE]\n\n")
		case req.Stream:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"id":"c2","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant","content":"The tool "}}]}`+"\n\n")
			fmt.Fprint(w, `data: {"id":"c2","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"content":"said hi."},"finish_reason":"stop"}]}`+"\n\n")
			fmt.Fprint(w, `data: {"id":"c2","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":5,"total_tokens":25}}`+"\n\ndata: [DONE]\n\n")
		default:
			t.Errorf("unexpected request: %s", body)
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
}

// Credentials live only on the worker: after a turn through a real
// OpenAI-compatible adapter and a failed call whose error body echoes the
// key, no byte of the key is anywhere in the run's history.
func TestProviderKeyNeverEntersHistory(t *testing.T) {
	srv := fakeOpenAI(t)
	defer srv.Close()
	p, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: secretKey, DefaultModel: "gpt-test"})
	require.NoError(t, err)
	e := newEnv(t)
	e.providers = map[string]activities.Provider{"openai": p}
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)

	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "secret", Options: signals.AgentOptions{Provider: "openai", Tools: []string{"echo"}, Hooks: []string{}},
		First: "say hi through the tool",
	})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	_, err = h.Followup(ctx, "now fail")
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	log, err := h.Log(ctx)
	require.NoError(t, err)
	evs := events(t, log)
	require.Equal(t, "The tool said hi.", ofType[eventlog.AssistantMessage](evs)[1].Text)
	attempt := ofType[eventlog.AssistantAttempt](evs)[0]
	require.Equal(t, eventlog.FailureAuth, attempt.Failure.Kind)
	require.NotContains(t, attempt.Failure.Message, secretKey)

	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	raw := historyBytes(t, history)
	require.NotEmpty(t, raw)
	require.False(t, bytes.Contains(raw, []byte(secretKey)), "the API key is in the history")
	require.False(t, bytes.Contains(raw, []byte(secretKey[3:15])), "part of the API key is in the history")
}
