package signals

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

func TestMCPGrantsParseAndPrint(t *testing.T) {
	g, ok := ParseMCPGrant("mcp:files/read")
	require.True(t, ok)
	require.Equal(t, MCPGrant{Server: "files", Tool: "read"}, g)
	require.Equal(t, "mcp:files/read", g.String())
	g, ok = ParseMCPGrant("mcp:files")
	require.True(t, ok)
	require.Equal(t, "mcp:files", g.String())
	_, ok = ParseMCPGrant("read_file")
	require.False(t, ok)
	require.Equal(t, []string{"files", "search"}, MCPServers([]string{"clock", "mcp:files/read", "mcp:search", "mcp:files"}))
}

func TestMCPToolNamesAreWhatProvidersAccept(t *testing.T) {
	require.Equal(t, "files__read", MCPToolName("files", "read"))
	require.Equal(t, "files__read_file_v2", MCPToolName("files", "read.file v2"))
	long := MCPToolName("files", strings.Repeat("é", 80))
	require.Len(t, long, MaxMCPToolNameBytes)
	require.Empty(t, strings.Trim(long, mcpToolNameCharacters), "only [a-zA-Z0-9_-]")
}

func TestMCPAnnotationsChooseTheMode(t *testing.T) {
	no, yes := false, true
	require.Equal(t, ToolParallel, MCPMode(eventlog.MCPTool{ReadOnly: true}))
	require.Equal(t, ToolExclusive, MCPMode(eventlog.MCPTool{}), "MCP: not read-only means destructive unless said otherwise")
	require.Equal(t, ToolExclusive, MCPMode(eventlog.MCPTool{Destructive: &yes}))
	require.Equal(t, ToolSequential, MCPMode(eventlog.MCPTool{Destructive: &no}))
}

func TestMCPEntriesInOptions(t *testing.T) {
	known := []string{"clock", "mcp:files"}
	for _, ok := range [][]string{{"mcp:files"}, {"mcp:files/read", "clock"}} {
		require.NoError(t, ValidateOptions(AgentOptions{Tools: ok}, known, nil), ok)
	}
	for entry, want := range map[string]string{
		"mcp:search":                     "not configured on this worker",
		"mcp:":                           "server name",
		"mcp:a__b":                       "server name",
		"mcp:files/":                     "names no tool",
		"mcp:" + strings.Repeat("s", 33): "server name",
	} {
		err := ValidateOptions(AgentOptions{Tools: []string{entry}}, known, nil)
		require.ErrorIs(t, err, ErrInvalidOptions, entry)
		require.ErrorContains(t, err, want, entry)
	}
	require.NoError(t, ValidateOptions(AgentOptions{Tools: []string{"mcp:anything"}}, nil, nil), "a client does not know the worker's servers")
}

func TestChildMayNarrowAnMCPServerGrant(t *testing.T) {
	parent := []string{"mcp:files", "mcp:search/find"}
	require.NoError(t, ValidateSpawnArgs(SpawnArgs{Task: "x", Tools: []string{"mcp:files/read", "mcp:search/find"}}, parent))
	require.ErrorIs(t, ValidateSpawnArgs(SpawnArgs{Task: "x", Tools: []string{"mcp:search"}}, parent), ErrInvalidSpawn, "widening is refused")
	require.ErrorIs(t, ValidateSpawnArgs(SpawnArgs{Task: "x", Tools: []string{"mcp:search/other"}}, parent), ErrInvalidSpawn)
}
