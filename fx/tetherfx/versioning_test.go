package tetherfx

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
)

// The worker app started with --versioning polls as this binary's build
// of the deployment it names, makes itself current in a deployment that
// has no current version, and runs an agent there, pinned to that build.
func TestTheWorkerAppRunsVersionedWithVersioning(t *testing.T) {
	ts := testserver.New(t)
	c := ts.GetDefaultClient()
	cfg, err := configfx.Load([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(),
		"--no-search-attributes", "--versioning", "--deployment-name", "fleet", "--upgrade-after-turns", "4"},
		func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, 4, cfg.Workflow.UpgradeAfterTurns)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	app := fx.New(Worker(cfg, io.Discard))
	require.NoError(t, app.Start(ctx))
	defer func() { require.NoError(t, app.Stop(ctx)) }()

	build := workerfx.BuildID()
	require.NotEmpty(t, build)
	require.Eventually(t, func() bool {
		d, err := c.WorkerDeploymentClient().GetHandle("fleet").Describe(ctx, client.WorkerDeploymentDescribeOptions{})
		return err == nil && d.Info.RoutingConfig.CurrentVersion != nil && d.Info.RoutingConfig.CurrentVersion.BuildID == build
	}, time.Minute, 200*time.Millisecond, "the first versioned worker of a deployment makes itself current")

	h, err := agent.New(c, "", agent.WithoutSearchAttributes()).Create(ctx, agent.CreateOptions{
		Options: signals.AgentOptions{Hooks: []string{}}, First: "/say pinned"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	d, err := c.DescribeWorkflowExecution(ctx, h.ID, "")
	require.NoError(t, err)
	v := d.GetWorkflowExecutionInfo().GetVersioningInfo()
	require.Equal(t, "fleet", v.GetDeploymentVersion().GetDeploymentName())
	require.Equal(t, build, v.GetDeploymentVersion().GetBuildId())
	require.Equal(t, enumspb.VERSIONING_BEHAVIOR_PINNED, v.GetBehavior())
	require.NoError(t, h.Dispose(ctx, "test over"))
}
