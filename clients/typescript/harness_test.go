package typescript_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// startTether starts an embedded Temporal server with Tether's search
// attributes and a worker on the scripted model offering calculate and the
// loop's tools; it returns the frontend's address and the namespace.
func startTether(t *testing.T) (address, namespace string) {
	t.Helper()
	ts := testserver.New(t)
	c := ts.GetDefaultClient()
	attrs := map[string]enumspb.IndexedValueType{}
	for name, kind := range signals.SearchAttributeKinds {
		attrs[name] = enumspb.IndexedValueType(enumspb.IndexedValueType_value["INDEXED_VALUE_TYPE_"+strings.ToUpper(kind)])
	}
	_, err := c.OperatorService().AddSearchAttributes(context.Background(), &operatorservice.AddSearchAttributesRequest{
		Namespace: ts.GetDefaultNamespace(), SearchAttributes: attrs,
	})
	require.NoError(t, err)
	reg, err := tools.NewRegistry(append([]tools.Tool{tools.Calculator()}, tools.LoopTools()...)...)
	require.NoError(t, err)
	reader := activities.NewLogReader(activities.WorkflowLog{Client: c}, 0)
	providers := map[string]activities.Provider{scripted.Name: scripted.Provider{}}
	model := &activities.Model{Providers: providers, DefaultProvider: scripted.Name, Tools: reg, Log: reader, HeartbeatEvery: time.Second}
	tool := &activities.Tool{Runner: reg, Log: reader, HeartbeatEvery: time.Second}
	require.NoError(t, model.Validate())
	require.NoError(t, tool.Validate())
	// MaxRunTurns: an agent continues as new after 3 turns, so the
	// client reads a log across runs.
	base := workflows.Config{ModelHeartbeat: 3 * time.Second, ToolHeartbeat: 3 * time.Second, MaxRunTurns: 3}
	cfg := workerfx.WorkflowConfig(base, nil, reg)
	cfg.Snapshots = reader
	cfg.Providers = slices.Sorted(maps.Keys(providers))
	ts.NewWorker(signals.TaskQueue, func(r worker.Registry) {
		workflows.Register(r, cfg)
		activities.Register(r, model, tool)
	})
	return ts.GetFrontendHostPort(), ts.GetDefaultNamespace()
}
