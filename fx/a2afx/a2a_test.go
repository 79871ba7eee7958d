package a2afx

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/providerfx"
	"github.com/tetherdev/tether/internal/startup"
)

func params(t *testing.T, file string) ProfilesParams {
	t.Helper()
	reg, err := tools.NewRegistry(tools.Calculator(), tools.CurrentTime(time.Now))
	require.NoError(t, err)
	return ProfilesParams{Config: configfx.A2AConfig{Profiles: file}, Tools: reg, ToolNames: []string{"mcp:search"},
		Providers: providerfx.Providers{ByName: map[string]activities.Provider{scripted.Name: scripted.Provider{}}, Default: scripted.Name}}
}

func writeProfiles(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "profiles.json")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return path
}

func TestProfilesAreCheckedAgainstTheWorkersToolsAndProviders(t *testing.T) {
	ps, err := LoadProfiles(params(t, writeProfiles(t, `{"agents": [{"name": "a", "tools": ["calculate", "mcp:search"], "provider": "scripted"}]}`)))
	require.NoError(t, err)
	require.Len(t, ps, 1)

	for name, c := range map[string]struct{ body, want string }{
		"a tool it lacks":        {`{"agents": [{"name": "x", "tools": ["no_such_tool"]}]}`, `agents[0] ("x"): agent options are invalid: tool "no_such_tool" is not offered by this worker`},
		"an MCP server it lacks": {`{"agents": [{"name": "x", "tools": ["mcp:files"]}]}`, `MCP server "files" is not configured`},
		"a provider it lacks":    {`{"agents": [{"name": "x", "model": "openai/gpt-5-mini"}]}`, `provider "openai" is not offered by this worker`},
		"not JSON":               {`{`, "not a profiles file"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := LoadProfiles(params(t, writeProfiles(t, c.body)))
			var se *startup.Error
			require.ErrorAs(t, err, &se)
			require.Contains(t, startup.Explain(err), c.want)
			require.Contains(t, startup.Explain(err), "--a2a-profiles")
		})
	}
}

func TestWithoutAFileTheServerOffersTheDefaultProfile(t *testing.T) {
	ps, err := LoadProfiles(params(t, ""))
	require.NoError(t, err)
	require.Equal(t, "tether", ps[0].Name)
	require.Equal(t, []string{"current_time", "calculate"}, ps[0].Options.Tools)
}
