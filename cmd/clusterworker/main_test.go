package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/providerfx"
	"github.com/tetherdev/tether/fx/tetherfx"
	"github.com/tetherdev/tether/internal/testserver"
)

// The cluster's worker is cmd/worker's app plus the workload: it starts
// against a real server with the workload's model and tool beside the
// configured ones.
func TestWorkerAppWithTheWorkloadStarts(t *testing.T) {
	ts := testserver.New(t)
	cfg, err := configfx.Load([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace()},
		func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	var (
		providers providerfx.Providers
		reg       *tools.Registry
	)
	app := fx.New(tetherfx.Worker(cfg, io.Discard), workload.Option(), fx.Populate(&providers, &reg))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, app.Start(ctx))
	defer func() { require.NoError(t, app.Stop(ctx)) }()

	require.Contains(t, providers.ByName, workload.Provider)
	fetch, ok := reg.Lookup(workload.Fetch)
	require.True(t, ok, "the workload's tool is registered")
	require.False(t, fetch.Local, "fetch runs as a regular activity")
}
