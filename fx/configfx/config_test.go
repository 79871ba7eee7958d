package configfx

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
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
}
