package toolfx

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/fx/configfx"
)

func TestFileToolsAreRegisteredOnlyWithAWorkspace(t *testing.T) {
	r, err := New(Params{Config: configfx.ToolsConfig{}})
	require.NoError(t, err)
	require.Equal(t, []string{"ask_human", "calculate", "current_time", "spawn_agent", "wait"}, r.Names())

	r, err = New(Params{Config: configfx.ToolsConfig{Workspace: t.TempDir(), Deny: tools.DefaultDeny()}})
	require.NoError(t, err)
	require.Equal(t, []string{"ask_human", "calculate", "current_time", "list_files", "read_file", "spawn_agent", "wait"}, r.Names())
}

func TestBadWorkspaceConfigurationStopsTheWorker(t *testing.T) {
	_, err := New(Params{Config: configfx.ToolsConfig{Workspace: t.TempDir(), Deny: []string{"keys/*.pem"}}})
	require.ErrorContains(t, err, "deny pattern")
	_, err = New(Params{Config: configfx.ToolsConfig{Workspace: "/no/such/dir"}})
	require.ErrorContains(t, err, "/no/such/dir")
}
