package configfx

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/activities/tools"
)

func TestLoadRejectsBadConfigurationWithClearErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"dev and demo", []string{"--dev", "--demo"}, nil, "--dev and --demo are exclusive"},
		{"unknown provider", []string{"--provider", "gemini"}, nil, `--provider "gemini"`},
		{"anthropic without endpoint", []string{"--provider", "anthropic"}, nil, "needs ANTHROPIC_API_KEY"},
		{"openai without endpoint", []string{"--provider", "openai"}, nil, "needs OPENAI_API_KEY"},
		{"bad base url", []string{"--openai-base-url", "localhost:11434"}, nil, "is not an http(s) URL"},
		{"empty task queue", []string{"--task-queue", ""}, nil, "--task-queue must not be empty"},
		{"tiny timeout", []string{"--tool-timeout", "10ms"}, nil, "at least 1s"},
		{"stray argument", []string{"run"}, nil, "unexpected arguments"},
		{"tiny heartbeat timeout", []string{"--heartbeat-timeout", "500ms"}, nil, "--heartbeat-timeout must be at least 1s"},
		{"heartbeat interval over half the timeout", []string{"--heartbeat-interval", "3s"}, nil, "from 100ms to half of it"},
		{"tiny heartbeat interval", []string{"--heartbeat-interval", "10ms"}, nil, "from 100ms to half of it"},
		{"tls cert without key", []string{"--stream-tls-cert", "cert.pem"}, nil, "--stream-tls-cert and --stream-tls-key go together"},
		{"tls key without cert", []string{"--stream-tls-key", "key.pem"}, nil, "--stream-tls-cert and --stream-tls-key go together"},
		{"http url with tls", []string{"--stream-tls-cert", "c.pem", "--stream-tls-key", "k.pem", "--stream-url", "http://w:7243"}, nil, "must be https://"},
		{"stream url not a url", []string{"--stream-url", "worker:7243"}, nil, "is not an http(s) URL"},
		{"no stream subscribers", []string{"--stream-max-subscribers", "0"}, nil, "must be at least 1"},
		{"no subscribers per stream", []string{"--stream-max-per-stream", "0"}, nil, "must be at least 1"},
		{"unknown flag", []string{"--nope"}, nil, "flag provided but not defined"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestLoadDefaultsAndEnvironment(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "sk-secret", "OPENAI_MODEL": "gpt-x"}
	cfg, err := Load([]string{"--demo"}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, DemoPrompt, cfg.Demo)
	require.True(t, cfg.Embedded())
	require.True(t, cfg.OpenAIConfigured())
	require.Equal(t, "sk-secret", cfg.Provider.OpenAIAPIKey)
	require.Equal(t, "gpt-x", cfg.Provider.OpenAIModel)
	require.Equal(t, DefaultDataDir, cfg.DataDir)

	cfg, err = Load(nil, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	require.Empty(t, cfg.Demo, "the demo runs only with --demo")
	require.False(t, cfg.Embedded())
	require.Equal(t, 5*time.Second, cfg.Workflow.ToolHeartbeat)
	require.Equal(t, 5*time.Second, cfg.Workflow.ModelHeartbeat)
	require.Equal(t, 2*time.Second, cfg.HeartbeatInterval)
}

func TestFileToolsNeedAnExplicitWorkspaceExceptInTheDemo(t *testing.T) {
	noEnv := func(string) string { return "" }
	cfg, err := Load(nil, noEnv, io.Discard)
	require.NoError(t, err)
	require.Empty(t, cfg.Tools.Workspace, "the worker's current directory is never a default")
	require.Equal(t, tools.DefaultDeny(), cfg.Tools.Deny)

	cfg, err = Load([]string{"--demo"}, noEnv, io.Discard)
	require.NoError(t, err)
	require.Equal(t, ".", cfg.Tools.Workspace, "the demo reads the README.md it runs next to")

	cfg, err = Load([]string{"--demo", "--workspace", "/srv/docs", "--workspace-deny", "*.pem, secrets*"}, noEnv, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "/srv/docs", cfg.Tools.Workspace)
	require.Equal(t, []string{"*.pem", "secrets*"}, cfg.Tools.Deny)

	cfg, err = Load([]string{"--workspace", "docs", "--workspace-deny", ""}, noEnv, io.Discard)
	require.NoError(t, err)
	require.NotNil(t, cfg.Tools.Deny)
	require.Empty(t, cfg.Tools.Deny, "an empty flag withholds nothing rather than falling back to the default")
}

func TestStreamDefaultsServePlainHTTPOnLoopbackWithLimits(t *testing.T) {
	cfg, err := Load(nil, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, StreamConfig{
		Addr:                    "127.0.0.1:0",
		MaxSubscribers:          stream.DefaultMaxSubscribers,
		MaxSubscribersPerStream: stream.DefaultMaxSubscribersPerStream,
	}, cfg.Stream)
	require.False(t, cfg.Stream.TLS())

	cfg, err = Load([]string{"--stream-tls-cert", "c.pem", "--stream-tls-key", "k.pem", "--stream-url", "https://worker-1:7243"},
		func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	require.True(t, cfg.Stream.TLS())
}
