package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
)

// The cluster's worker is cmd/worker's app plus the workload: every
// dependency of the graph is still provided. (What the workload adds is
// proven in bench/workload.)
func TestWorkerAppWithTheWorkloadIsComplete(t *testing.T) {
	cfg, err := configfx.Load([]string{"--address", "127.0.0.1:7233"}, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	require.NoError(t, fx.ValidateApp(tetherfx.Worker(cfg), workload.Option()))
}
