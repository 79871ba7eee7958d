package tetherfx

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/fx/configfx"
)

// testKey is a well-formed codec key entry (32 zero bytes).
const testKey = "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

// mcpConfig is a config file naming one MCP server.
func mcpConfig(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"servers":{"search":{"url":"http://127.0.0.1:1/mcp"}}}`), 0o600))
	return path
}

// The worker's option list resolves for every mode cmd/worker can run in.
func TestWorkerAppValidatesInEveryMode(t *testing.T) {
	cases := map[string]struct {
		args []string
		env  map[string]string
	}{
		"cluster":           {args: nil},
		"dev":               {args: []string{"--dev", "--data-dir", t.TempDir()}},
		"demo":              {args: []string{"--demo"}},
		"openai":            {env: map[string]string{"OPENAI_API_KEY": "sk-test"}},
		"ollama":            {args: []string{"--openai-base-url", "http://127.0.0.1:11434/v1", "--provider", "openai"}},
		"anthropic":         {env: map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test"}},
		"no search attrs":   {args: []string{"--no-search-attributes"}},
		"custom task queue": {args: []string{"--task-queue", "agents-eu"}},
		"dev with codec":    {args: []string{"--dev", "--data-dir", t.TempDir()}, env: map[string]string{codec.EnvKeys: testKey}},
		"codec server":      {args: []string{"--codec-addr", "127.0.0.1:0"}, env: map[string]string{codec.EnvKeys: testKey}},
		"telemetry":         {args: []string{"--otlp-endpoint", "http://127.0.0.1:4318", "--metrics-addr", "127.0.0.1:0"}},
		"telemetry on grpc": {args: []string{"--otlp-endpoint", "http://127.0.0.1:4317", "--otlp-protocol", "grpc"}},
		"mcp servers":       {args: []string{"--mcp-config", mcpConfig(t)}},
		"dev console operator": {args: []string{"--dev", "--data-dir", t.TempDir(), "--console-addr", "127.0.0.1:0"},
			env: map[string]string{configfx.EnvConsoleToken: "an-operator-token-of-some-length"}},
		"dev a2a": {args: []string{"--dev", "--data-dir", t.TempDir(), "--a2a-addr", "127.0.0.1:0"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg, err := configfx.Load(tc.args, func(k string) string { return tc.env[k] }, nil)
			require.NoError(t, err)
			require.NoError(t, fx.ValidateApp(Worker(cfg, io.Discard)))
		})
	}
}
