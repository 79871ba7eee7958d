package toolfx

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

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

// The worker's --workspace-hard-links reaches the file tools: without it a
// hard-linked file is withheld, with it read.
func TestWorkspaceHardLinksSettingReachesReadFile(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "linked.txt")
	require.NoError(t, os.WriteFile(outside, []byte("linked on purpose"), 0o600))
	if err := os.Link(outside, filepath.Join(root, "linked.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	read := func(allow bool) string {
		r, err := New(Params{Config: configfx.ToolsConfig{Workspace: root, Deny: tools.DefaultDeny(), AllowHardLinks: allow}})
		require.NoError(t, err)
		res, err := r.Execute(context.Background(), tools.Call{Name: "read_file", Arguments: json.RawMessage(`{"path":"linked.txt"}`)})
		require.NoError(t, err)
		return res.Content
	}
	require.Contains(t, read(false), "hard links")
	require.NotContains(t, read(false), "linked on purpose")
	require.Contains(t, read(true), "linked on purpose")
}

func TestToolsJoinTheWorkersRegistry(t *testing.T) {
	type echoArgs struct {
		Text string `json:"text"`
	}
	echo := tools.New("echo", "Echo text.", func(_ context.Context, a echoArgs) (string, error) { return a.Text, nil })
	var r *tools.Registry
	app := fx.New(fx.NopLogger, Module, fx.Supply(configfx.ToolsConfig{}),
		Tools(echo, tools.New("shout", "Shout.", func(context.Context, struct{}) (string, error) { return "HEY", nil })),
		fx.Populate(&r))
	require.NoError(t, app.Err())
	require.Equal(t, []string{"ask_human", "calculate", "current_time", "echo", "shout", "spawn_agent", "wait"}, r.Names())
	res, err := r.Execute(context.Background(), tools.Call{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
	require.NoError(t, err)
	require.Equal(t, tools.Result{Content: "hi"}, res)

	bad := fx.New(fx.NopLogger, Module, fx.Supply(configfx.ToolsConfig{}), Tools(echo, echo), fx.Populate(&r))
	require.ErrorContains(t, bad.Err(), `duplicate name "echo"`)
}
