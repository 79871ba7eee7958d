package tetherfx

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/fx/configfx"
)

// testKey is a well-formed codec key entry (32 zero bytes).
const testKey = "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

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
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg, err := configfx.Load(tc.args, func(k string) string { return tc.env[k] }, nil)
			require.NoError(t, err)
			require.NoError(t, fx.ValidateApp(Worker(cfg, io.Discard)))
		})
	}
}
