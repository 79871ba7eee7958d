package a2aserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/signals"
)

func TestProfilesFromAFileAreOneCardEachWithTheirOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "profiles.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"agents": [
		{"name": "assistant", "description": "answers sums", "model": "openai/gpt-5-mini", "tools": ["calculate"], "approve": ["calculate"], "system": "Be brief."},
		{"name": "plain", "tools": []},
		{"name": "defaults"}
	]}`), 0o600))
	ps, err := LoadProfiles(path)
	require.NoError(t, err)
	require.Len(t, ps, 3)
	require.Equal(t, Profile{Name: "assistant", Description: "answers sums", Options: signals.AgentOptions{
		Provider: "openai", Model: "gpt-5-mini", SystemPrompt: "Be brief.", Tools: []string{"calculate"},
		Approval: &signals.ApprovalPolicy{Tools: []string{"calculate"}},
	}}, ps[0])
	require.NotNil(t, ps[1].Options.Tools, "[] is no tools, kept apart from left out")
	require.Empty(t, ps[1].Options.Tools)
	require.Nil(t, ps[2].Options.Tools, "left out is the worker's default set")
}

func TestABadProfilesFileIsRefusedNamingTheEntryAndTheFault(t *testing.T) {
	for name, c := range map[string]struct{ raw, want string }{
		"empty file":          {``, "not a profiles file"},
		"not JSON":            {`{"agents": [`, "not a profiles file"},
		"a list, not object":  {`[{"name":"a"}]`, "not a profiles file"},
		"two values":          {`{"agents":[{"name":"a"}]} {}`, "more than one JSON value"},
		"no agents":           {`{"agents": []}`, "no profiles"},
		"misspelt field":      {`{"agents": [{"name":"a","tool":["calculate"]}]}`, `unknown field "tool"`},
		"no name":             {`{"agents": [{"description":"x"}]}`, `agents[0]: "name" is required`},
		"a slash in the name": {`{"agents": [{"name":"a/b"}]}`, `agents[0] ("a/b"): the name "a/b" holds '/'`},
		"dot dot":             {`{"agents": [{"name":".."}]}`, "no path segment"},
		"a long name":         {`{"agents": [{"name":"` + strings.Repeat("n", 200) + `"}]}`, "at most 128"},
		"named twice":         {`{"agents": [{"name":"a"},{"name":"b"},{"name":"a"}]}`, `agents[2] ("a"): the name is agents[0]'s too`},
		"a tool twice":        {`{"agents": [{"name":"a","tools":["calculate","calculate"]}]}`, `agents[0] ("a"): agent options are invalid: tool "calculate" listed twice`},
		"tools not a list":    {`{"agents": [{"name":"a","tools":"calculate"}]}`, "not a profiles file"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseProfiles([]byte(c.raw), nil, nil)
			require.ErrorContains(t, err, c.want)
		})
	}
	_, err := ParseProfiles([]byte(`{"agents": [{"name":"a","tools":["no_such_tool"]}]}`), []string{"calculate"}, nil)
	require.ErrorContains(t, err, "no_such_tool", "a worker that knows its tools refuses one it lacks")
	_, err = ParseProfiles(make([]byte, MaxProfilesFileBytes+1), nil, nil)
	require.ErrorContains(t, err, "over 1048576 bytes")
	_, err = LoadProfiles(filepath.Join(t.TempDir(), "missing.json"))
	require.ErrorContains(t, err, "missing.json")
}
