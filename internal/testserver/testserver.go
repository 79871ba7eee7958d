// Package testserver starts the Temporal server's own test server
// (temporaltest) for a test, with the dynamic config of the embedded dev
// server (internal/devserver) rather than temporaltest's defaults: tests run
// on the settings the product runs on, among them one partition a task
// queue, where temporaltest keeps the server's default of four.
package testserver

import (
	"testing"

	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/temporal"
	"go.temporal.io/server/temporaltest"

	"github.com/tetherdev/tether/internal/devserver"
)

// New starts a test server, stopped when t ends.
func New(t *testing.T, opts ...temporaltest.TestServerOption) *temporaltest.TestServer {
	return temporaltest.NewServer(append([]temporaltest.TestServerOption{temporaltest.WithT(t), Options()}, opts...)...)
}

// Options is the server option New applies, for callers that start the
// server themselves. It replaces temporaltest's dynamic config, so it keeps
// the one value that sets: search attributes take effect at once.
func Options() temporaltest.TestServerOption {
	dc := devserver.DynamicConfig(map[string]any{
		dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key().String(): true,
	})
	return temporaltest.WithBaseServerOptions(temporal.WithDynamicConfigClient(dc))
}
