package configfx

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, data string) string {
	path := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
	return path
}

func TestMCPServersComeFromTheConfigFileTheFlagOrVariableNames(t *testing.T) {
	path := writeFile(t, `{"servers":{"search":{"url":"https://search.example/mcp","headers_env":{"Authorization":"SEARCH_AUTH"}}}}`)
	env := map[string]string{"SEARCH_AUTH": "Bearer s"}
	for name, args := range map[string][]string{"flag": {"--mcp-config", path}, "variable": nil} {
		t.Run(name, func(t *testing.T) {
			vars := map[string]string{"SEARCH_AUTH": env["SEARCH_AUTH"]}
			if args == nil {
				vars[EnvMCPConfig] = path
			}
			cfg, err := Load(args, func(k string) string { return vars[k] }, io.Discard)
			require.NoError(t, err)
			require.Equal(t, []string{"search"}, cfg.MCP.Names())
			require.Equal(t, "Bearer s", cfg.MCP.Servers["search"].Headers.Get("Authorization"))
		})
	}
	cfg, err := Load(nil, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	require.Empty(t, cfg.MCP.Servers, "no file, no servers")
}

func TestABadMCPConfigFileIsRefusedNamingTheFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.json")
	for path, want := range map[string]string{
		missing: "--mcp-config " + missing + ": open " + missing + ": no such file or directory",
		writeFile(t, `{"servers":{"search":{"url":"https://s/mcp","headers_env":{"Authorization":"SEARCH_AUTH"}}}}`): `: server "search": headers_env "Authorization" takes its value from SEARCH_AUTH, which is not set`,
	} {
		_, err := Load([]string{"--mcp-config", path}, func(string) string { return "" }, io.Discard)
		require.ErrorContains(t, err, want)
		require.ErrorContains(t, err, "--mcp-config "+path+": ")
	}
}
