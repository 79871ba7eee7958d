package telemetry_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/telemetry"
	"github.com/tetherdev/tether/workflows"
)

// Every recorded history (workflows/testdata/histories) replays with the
// telemetry's interceptors and observer installed: they add no command, so
// replay stays deterministic, and replay emits no span and counts nothing.
func TestRecordedHistoriesReplayWithTelemetryAndEmitNothing(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "workflows", "testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	spans, reader := tracetest.NewInMemoryExporter(), sdkmetric.NewManualReader()
	tel, err := telemetry.New(telemetry.Options{SpanExporter: spans, MeterProvider: telemetry.NewMeterProvider(reader, nil)})
	require.NoError(t, err)
	hooks, enabled := hook.Defaults()
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Interceptors: tel.WorkerInterceptors()})
			require.NoError(t, err)
			agent := workflows.Agent{Config: workflows.Config{Hooks: hooks, DefaultHooks: enabled, Observer: tel.Observer()}}
			r.RegisterWorkflowWithOptions(agent.Run, workflow.RegisterOptions{Name: signals.AgentWorkflow})
			hist := readHistory(t, f)
			opts := worker.ReplayWorkflowHistoryOptions{}
			if log, err := projection.FromHistory(hist.GetEvents()); err == nil { // v1 histories do not project
				opts.OriginalExecution = workflow.Execution{ID: agentID(log), RunID: "replayed"}
			}
			require.NoError(t, r.ReplayWorkflowHistoryWithOptions(nil, hist, opts))
		})
	}
	require.NoError(t, tel.ForceFlush(context.Background()))
	require.Empty(t, spans.GetSpans())
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, dp := range sum.DataPoints {
					require.Zero(t, dp.Value, "%s %s", m.Name, dp.Attributes.Encoded(attribute.DefaultEncoder()))
				}
			}
		}
	}
}

func readHistory(t *testing.T, path string) *historypb.History {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var h historypb.History
	require.NoError(t, temporalproto.CustomJSONUnmarshalOptions{}.Unmarshal(b, &h))
	return &h
}

// agentID is the workflow ID a log was recorded under, which children's IDs
// derive from, as its tool calls' idempotency keys or its children name it.
func agentID(log []eventlog.Envelope) string {
	for _, env := range log {
		switch e, _ := eventlog.Decode(env); e := e.(type) {
		case eventlog.ToolCall:
			id, _, _ := strings.Cut(e.IdempotencyKey, "/")
			return id
		case eventlog.ChildStarted:
			return e.ChildID[:max(0, strings.LastIndex(e.ChildID, ".child-"))]
		}
	}
	return "replayed"
}
