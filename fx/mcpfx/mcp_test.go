package mcpfx_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
)

// probed is what probe saw of the worker's MCP activities.
type probed struct {
	Listed eventlog.ToolsListed
	PID    signals.ToolOutput
}

// probe lists server "files" and calls its pid tool, as the loop would.
func probe(ctx workflow.Context) (probed, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	var p probed
	if err := workflow.ExecuteActivity(ctx, signals.ListToolsActivity, signals.ListToolsInput{Servers: []string{"files"}}).Get(ctx, &p.Listed); err != nil {
		return p, err
	}
	err := workflow.ExecuteActivity(ctx, signals.ToolActivity, signals.ToolInput{
		CallID: "c1", Name: "files__pid", IdempotencyKey: "probe/1/1/c1", Arguments: []byte(`{}`),
		MCP: &signals.MCPGrant{Server: "files", Tool: "pid"},
	}).Get(ctx, &p.PID)
	return p, err
}

func probeRegistration() fx.Option {
	return fx.Provide(fx.Annotate(func() workerfx.Registration {
		return func(r worker.Registry) {
			r.RegisterWorkflowWithOptions(probe, workflow.RegisterOptions{Name: "mcp-probe"})
		}
	}, fx.ResultTags(`group:"`+workerfx.Group+`"`)))
}

// writeConfig builds the test MCP server and names it "files" in a config
// file.
func writeConfig(t *testing.T) string {
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcpserver")
	out, err := exec.Command("go", "build", "-o", bin, "../../activities/mcp/testdata/mcpserver").CombinedOutput()
	require.NoError(t, err, string(out))
	data, err := json.Marshal(map[string]any{"servers": map[string]any{"files": map[string]any{"command": bin, "args": []string{"-state", dir}}}})
	require.NoError(t, err)
	path := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

func TestTheWorkerAppOffersItsMCPServersAndStopsThemWithIt(t *testing.T) {
	ts := testserver.New(t)
	queue := "q-mcp"
	cfg, err := configfx.Load([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(),
		"--task-queue", queue}, func(k string) string { return map[string]string{configfx.EnvMCPConfig: writeConfig(t)}[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, []string{"files"}, cfg.MCP.Names())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	app := fx.New(tetherfx.Worker(cfg, io.Discard), probeRegistration())
	require.NoError(t, app.Start(ctx))
	stopped := false
	defer func() {
		if !stopped {
			_ = app.Stop(ctx)
		}
	}()
	c := ts.GetDefaultClient()

	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: queue}, "mcp-probe")
	require.NoError(t, err)
	var p probed
	require.NoError(t, run.Get(ctx, &p))
	require.Len(t, p.Listed.Servers, 1)
	require.NotEmpty(t, p.Listed.Servers[0].Tools, "ListTools is registered and reaches the server")
	require.False(t, p.PID.IsError, p.PID.Content)
	var pid int
	_, err = fmt.Sscan(p.PID.Content, &pid)
	require.NoError(t, err, "the tool activity sends MCP calls to the server")

	for entry, ok := range map[string]bool{"mcp:files": true, "mcp:files/pid": true, "mcp:other": false} {
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: queue}, signals.AgentWorkflow,
			signals.AgentInput{Options: signals.AgentOptions{Tools: []string{entry}}})
		require.NoError(t, err)
		if ok {
			require.NoError(t, c.SignalWorkflow(ctx, run.GetID(), "", signals.DisposeSignal.Name, signals.Dispose{}))
			require.NoError(t, run.Get(ctx, nil), "an agent may enable %s", entry)
			continue
		}
		err = run.Get(ctx, nil)
		var app *temporal.ApplicationError
		require.True(t, errors.As(err, &app), "%v", err)
		require.Contains(t, app.Error(), `MCP server "other" is not configured on this worker`)
	}

	require.NoError(t, syscall.Kill(pid, 0), "the stdio server runs")
	require.NoError(t, app.Stop(ctx))
	stopped = true
	require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "stopping the worker stopped the server")
}
