package providerfx

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/configfx"
)

const officialKey = "sk-official-0123456789"

// chatServer speaks chat completions (a recorded reply) and records the
// Authorization header of each request.
type chatServer struct {
	URL  string
	mu   sync.Mutex
	auth []string
}

func newChatServer(t *testing.T) *chatServer {
	t.Helper()
	reply, err := os.ReadFile("../../activities/openai/testdata/chat_text.json")
	require.NoError(t, err)
	s := &chatServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(reply)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

// callOpenAI loads the worker configuration from args and env, builds the
// providers as the worker does and makes one OpenAI call. It returns what
// the worker logged.
func callOpenAI(t *testing.T, args []string, env map[string]string) string {
	t.Helper()
	cfg, err := configfx.Load(args, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	var logs bytes.Buffer
	p, err := New(Params{Config: cfg.Provider, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	require.Equal(t, OpenAIName, p.Default)
	_, err = p.ByName[OpenAIName].Complete(context.Background(),
		llm.Request{Messages: []eventlog.Message{{Role: eventlog.RoleUser, Content: "hi"}}})
	require.NoError(t, err)
	return logs.String()
}

func TestOpenAIKeyIsNotSentToACustomBaseURL(t *testing.T) {
	srv := newChatServer(t)
	logs := callOpenAI(t, []string{"--openai-base-url", srv.URL}, map[string]string{"OPENAI_API_KEY": officialKey})
	require.Equal(t, []string{""}, srv.auth, "no Authorization header")
	require.Equal(t, 1, strings.Count(logs, "\n"), "said once:\n%s", logs)
	require.Contains(t, logs, `level=WARN msg="OPENAI_API_KEY is not sent to a custom OpenAI base URL"`)
	require.Contains(t, logs, "key_env=OPENAI_COMPATIBLE_API_KEY")
	require.Contains(t, logs, `to_send_it="--openai-api-key-env OPENAI_API_KEY"`)
	require.NotContains(t, logs, officialKey)
}

func TestCustomBaseURLGetsItsOwnKey(t *testing.T) {
	srv := newChatServer(t)
	logs := callOpenAI(t, []string{"--openai-base-url", srv.URL},
		map[string]string{"OPENAI_API_KEY": officialKey, "OPENAI_COMPATIBLE_API_KEY": "sk-compatible"})
	require.Equal(t, []string{"Bearer sk-compatible"}, srv.auth)
	require.Empty(t, logs)
}

func TestOptInSendsOpenAIKeyToACustomBaseURL(t *testing.T) {
	srv := newChatServer(t)
	logs := callOpenAI(t, []string{"--openai-base-url", srv.URL, "--openai-api-key-env", "OPENAI_API_KEY"},
		map[string]string{"OPENAI_API_KEY": officialKey})
	require.Equal(t, []string{"Bearer " + officialKey}, srv.auth)
	require.Empty(t, logs)
}

// A local server such as Ollama needs no key; the worker says once that
// it sends none, and names the variable that would hold one.
func TestLocalServerWithoutKeyIsSaidOnce(t *testing.T) {
	srv := newChatServer(t)
	logs := callOpenAI(t, []string{"--openai-base-url", srv.URL}, nil)
	require.Equal(t, []string{""}, srv.auth)
	require.Equal(t, 1, strings.Count(logs, "\n"), logs)
	require.Contains(t, logs, `level=INFO msg="OpenAI-compatible endpoint has no API key"`)
	require.Contains(t, logs, "host=127.0.0.1:")
	require.Contains(t, logs, "key_env=OPENAI_COMPATIBLE_API_KEY")
}

func TestNoKeysMeansTheScriptedModelAlone(t *testing.T) {
	cfg, err := configfx.Load(nil, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	p, err := New(Params{Config: cfg.Provider, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	require.Equal(t, "scripted", p.Default)
	require.Len(t, p.ByName, 1)
}
