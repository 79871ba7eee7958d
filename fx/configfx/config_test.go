package configfx

import (
	"bytes"
	"flag"
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
		{"dev and demo", []string{"--dev", "--demo"}, nil, "--dev and --demo cannot be used together: run the demo, then --dev to inspect it"},
		{"unknown provider", []string{"--provider", "gemini"}, nil, `--provider "gemini" is unknown: use scripted, openai or anthropic`},
		{"anthropic without endpoint", []string{"--provider", "anthropic"}, nil, "needs ANTHROPIC_API_KEY"},
		{"openai without endpoint", []string{"--provider", "openai"}, nil, "needs OPENAI_API_KEY"},
		{"bad base url", []string{"--openai-base-url", "localhost:11434"}, nil, "--openai-base-url is not an http(s) URL"},
		{"empty key variable", []string{"--openai-base-url", "http://127.0.0.1:1/v1", "--openai-api-key-env", "MY_KEY"}, nil,
			"--openai-api-key-env MY_KEY names an empty variable"},
		{"empty task queue", []string{"--task-queue", ""}, nil, "--task-queue must not be empty"},
		{"tiny timeout", []string{"--tool-timeout", "10ms"}, nil, "at least 1s"},
		{"stray argument", []string{"run"}, nil, `unexpected arguments ["run"]`},
		{"tiny heartbeat timeout", []string{"--heartbeat-timeout", "500ms"}, nil, "--heartbeat-timeout must be at least 1s"},
		{"heartbeat interval over half the timeout", []string{"--heartbeat-interval", "3s"}, nil, "from 100ms to half of it"},
		{"tiny heartbeat interval", []string{"--heartbeat-interval", "10ms"}, nil, "from 100ms to half of it"},
		{"tiny sticky timeout", []string{"--sticky-timeout", "0s"}, nil, "--sticky-timeout must be at least 100ms"},
		{"tiny deadlock timeout", []string{"--deadlock-timeout", "500ms"}, nil, "--deadlock-timeout must be 0 (the SDK's 1s) or at least 1s"},
		{"negative cached agents", []string{"--cached-agents", "-1"}, nil, "--cached-agents must not be negative"},
		{"cached agents not a number", []string{"--cached-agents", "many"}, nil, `invalid value "many" for flag -cached-agents`},
		{"unknown flag", []string{"--nope"}, nil, "flag provided but not defined: -nope: worker -h lists the flags"},
		{"tls cert without key", []string{"--stream-tls-cert", "cert.pem"}, nil, "--stream-tls-cert and --stream-tls-key go together"},
		{"tls key without cert", []string{"--stream-tls-key", "key.pem"}, nil, "--stream-tls-cert and --stream-tls-key go together"},
		{"http url with tls", []string{"--stream-tls-cert", "c.pem", "--stream-tls-key", "k.pem", "--stream-url", "http://w:7243"}, nil, "must be https://"},
		{"stream url not a url", []string{"--stream-url", "worker:7243"}, nil, "is not an http(s) URL"},
		{"no stream subscribers", []string{"--stream-max-subscribers", "0"}, nil, "must be at least 1"},
		{"no subscribers per stream", []string{"--stream-max-per-stream", "0"}, nil, "must be at least 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestLoadNeverEchoesABaseURL(t *testing.T) {
	_, err := Load([]string{"--openai-base-url", "ftp://user:hunter2@example.com"}, func(string) string { return "" }, io.Discard)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "hunter2")
}

func TestLoadPrintsFlagsOnlyForHelp(t *testing.T) {
	var out bytes.Buffer
	_, err := Load([]string{"-h"}, func(string) string { return "" }, &out)
	require.ErrorIs(t, err, flag.ErrHelp)
	require.Contains(t, out.String(), "-openai-api-key-env")

	out.Reset()
	_, err = Load([]string{"--nope"}, func(string) string { return "" }, &out)
	require.Error(t, err)
	require.Empty(t, out.String(), "a bad flag is one error, not the flag list")
}

func TestLoadDefaultsAndEnvironment(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "sk-secret", "OPENAI_MODEL": "gpt-x"}
	cfg, err := Load([]string{"--demo", "-v"}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, DemoPrompt, cfg.Demo)
	require.True(t, cfg.Embedded())
	require.True(t, cfg.Verbose)
	require.Equal(t, "gpt-x", cfg.Provider.OpenAIModel)
	require.Equal(t, DefaultDataDir, cfg.DataDir)

	cfg, err = Load(nil, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	require.Empty(t, cfg.Demo, "the demo runs only with --demo")
	require.False(t, cfg.Embedded())
	require.Equal(t, 5*time.Second, cfg.Workflow.ToolHeartbeat)
	require.Equal(t, 5*time.Second, cfg.Workflow.ModelHeartbeat)
	require.Equal(t, 2*time.Second, cfg.HeartbeatInterval)
	require.Equal(t, 2*time.Second, cfg.StickyTimeout)
	require.False(t, cfg.Verbose)
}

// Issue 10: the OpenAI key is sent only to the official API unless the
// user names the key variable for another base URL.
func TestOpenAIKeyGoesOnlyToTheEndpointItWasConfiguredFor(t *testing.T) {
	const official = "https://api.openai.com/v1"
	cases := []struct {
		name        string
		args        []string
		env         map[string]string
		url, keyEnv string
		key         string
		withheld    bool
		configured  bool
	}{
		{name: "key alone talks to the official API", env: map[string]string{"OPENAI_API_KEY": "sk-official"},
			url: official, keyEnv: "OPENAI_API_KEY", key: "sk-official", configured: true},
		{name: "no key, no endpoint: scripted", url: official, keyEnv: "OPENAI_API_KEY"},
		{name: "official URL with a trailing slash is official", args: []string{"--openai-base-url", official + "/"},
			env: map[string]string{"OPENAI_API_KEY": "sk-official"}, url: official + "/", keyEnv: "OPENAI_API_KEY", key: "sk-official", configured: true},
		{name: "custom URL does not get OPENAI_API_KEY", args: []string{"--openai-base-url", "http://127.0.0.1:11434/v1"},
			env: map[string]string{"OPENAI_API_KEY": "sk-official"}, url: "http://127.0.0.1:11434/v1",
			keyEnv: "OPENAI_COMPATIBLE_API_KEY", withheld: true, configured: true},
		{name: "OPENAI_BASE_URL is a custom URL too", env: map[string]string{"OPENAI_BASE_URL": "http://vllm:8000/v1", "OPENAI_API_KEY": "sk-official"},
			url: "http://vllm:8000/v1", keyEnv: "OPENAI_COMPATIBLE_API_KEY", withheld: true, configured: true},
		{name: "custom URL gets its own key", args: []string{"--openai-base-url", "http://vllm:8000/v1"},
			env: map[string]string{"OPENAI_API_KEY": "sk-official", "OPENAI_COMPATIBLE_API_KEY": "sk-vllm"},
			url: "http://vllm:8000/v1", keyEnv: "OPENAI_COMPATIBLE_API_KEY", key: "sk-vllm", withheld: true, configured: true},
		{name: "custom URL without any key is a local server", args: []string{"--openai-base-url", "http://127.0.0.1:11434/v1"},
			url: "http://127.0.0.1:11434/v1", keyEnv: "OPENAI_COMPATIBLE_API_KEY", configured: true},
		{name: "naming OPENAI_API_KEY opts in to sending it", args: []string{"--openai-base-url", "https://gw.example/v1", "--openai-api-key-env", "OPENAI_API_KEY"},
			env: map[string]string{"OPENAI_API_KEY": "sk-official"}, url: "https://gw.example/v1", keyEnv: "OPENAI_API_KEY", key: "sk-official", configured: true},
		{name: "any variable can hold the key", args: []string{"--openai-base-url", "https://gw.example/v1", "--openai-api-key-env", "GW_KEY"},
			env: map[string]string{"GW_KEY": "sk-gw", "OPENAI_API_KEY": "sk-official"}, url: "https://gw.example/v1", keyEnv: "GW_KEY", key: "sk-gw",
			withheld: true, configured: true},
		{name: "an empty base URL is the official API", args: []string{"--openai-base-url", ""},
			env: map[string]string{"OPENAI_API_KEY": "sk-official"}, url: official, keyEnv: "OPENAI_API_KEY", key: "sk-official", configured: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Load(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			require.NoError(t, err)
			p := cfg.Provider
			require.Equal(t, tc.url, p.OpenAIBaseURL)
			require.Equal(t, tc.keyEnv, p.OpenAIKeyEnv)
			require.Equal(t, tc.key, p.OpenAIAPIKey)
			require.Equal(t, tc.withheld, p.OpenAIKeyWithheld)
			require.Equal(t, tc.configured, p.OpenAIConfigured())
		})
	}
}

func TestAnthropicNeedsOnlyItsKey(t *testing.T) {
	cfg, err := Load([]string{"--provider", "anthropic"}, func(k string) string {
		return map[string]string{"ANTHROPIC_API_KEY": "sk-ant"}[k]
	}, io.Discard)
	require.NoError(t, err)
	require.True(t, cfg.Provider.AnthropicConfigured())
	require.Equal(t, "sk-ant", cfg.Provider.AnthropicAPIKey)
	require.Empty(t, cfg.Provider.AnthropicBaseURL, "the adapter's default, https://api.anthropic.com")
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

func TestWorkspaceHardLinksAreOptInByFlagOrEnvironment(t *testing.T) {
	noEnv := func(string) string { return "" }
	cfg, err := Load([]string{"--workspace", "docs"}, noEnv, io.Discard)
	require.NoError(t, err)
	require.False(t, cfg.Tools.AllowHardLinks, "a hard link may name a file outside the workspace: refused by default")

	cfg, err = Load([]string{"--workspace", "docs", "--workspace-hard-links"}, noEnv, io.Discard)
	require.NoError(t, err)
	require.True(t, cfg.Tools.AllowHardLinks)

	env := func(k string) string { return map[string]string{EnvWorkspaceHardLinks: "true"}[k] }
	cfg, err = Load([]string{"--workspace", "docs"}, env, io.Discard)
	require.NoError(t, err)
	require.True(t, cfg.Tools.AllowHardLinks)
	cfg, err = Load([]string{"--workspace", "docs", "--workspace-hard-links=false"}, env, io.Discard)
	require.NoError(t, err)
	require.False(t, cfg.Tools.AllowHardLinks, "the flag overrides the environment")

	_, err = Load([]string{"--workspace", "docs"}, func(k string) string { return map[string]string{EnvWorkspaceHardLinks: "yes please"}[k] }, io.Discard)
	require.ErrorContains(t, err, EnvWorkspaceHardLinks+`="yes please": want true or false`)
	_, err = Load([]string{"--workspace-hard-links"}, noEnv, io.Discard)
	require.ErrorContains(t, err, "--workspace-hard-links needs --workspace")

	var help bytes.Buffer
	_, err = Load([]string{"-h"}, noEnv, &help)
	require.ErrorIs(t, err, flag.ErrHelp)
	require.Regexp(t, `\nworker:\n(  .*\n)*  --workspace-hard-links\n .*\[\$`+EnvWorkspaceHardLinks+`\]\n`, help.String())
}

func TestPromptCacheSettingsComeFromFlagsOrEnvironmentAndOnlyTheProvidersValues(t *testing.T) {
	env := map[string]string{EnvAnthropicCacheTTL: "1h", EnvOpenAICacheRetention: "24h"}
	cfg, err := Load(nil, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, time.Hour, cfg.Provider.AnthropicCacheTTL)
	require.Equal(t, "24h", cfg.Provider.OpenAICacheRetention)

	cfg, err = Load([]string{"--anthropic-cache-ttl", "5m", "--openai-cache-retention", "in_memory"}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, 5*time.Minute, cfg.Provider.AnthropicCacheTTL, "the flag wins over the environment")
	require.Equal(t, "in_memory", cfg.Provider.OpenAICacheRetention)

	cfg, err = Load(nil, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	require.Zero(t, cfg.Provider.AnthropicCacheTTL, "unset: the API's default")
	require.Empty(t, cfg.Provider.OpenAICacheRetention)

	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--anthropic-cache-ttl", "10m"}, nil, "use 5m or 1h"},
		{[]string{"--anthropic-cache-ttl", "soon"}, nil, "use 5m or 1h"},
		{nil, map[string]string{EnvAnthropicCacheTTL: "2h"}, EnvAnthropicCacheTTL},
		{[]string{"--openai-cache-retention", "forever"}, nil, "use in_memory or 24h"},
	} {
		_, err := Load(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
		require.ErrorContains(t, err, tc.want, "%v %v", tc.args, tc.env)
	}
}
