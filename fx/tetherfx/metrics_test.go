package tetherfx

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/telemetryfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
)

// The started worker serves Prometheus metrics on --metrics-addr: after a
// turn with a tool call, Tether's counters, the model and tool histograms,
// the cached agents and the SDK's worker metrics are there.
func TestTheWorkerServesItsMetricsOnMetricsAddr(t *testing.T) {
	ts := testserver.New(t)
	queue := "q-metrics"
	cfg, err := configfx.Load([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(),
		"--task-queue", queue, "--metrics-addr", "127.0.0.1:0"}, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var endpoint telemetryfx.MetricsEndpoint
	app := fx.New(Worker(cfg, io.Discard), fx.Populate(&endpoint))
	require.NoError(t, app.Start(ctx))
	defer func() { require.NoError(t, app.Stop(ctx)) }()
	require.Regexp(t, `^http://127\.0\.0\.1:\d+/metrics$`, endpoint.URL)

	h, err := agent.New(ts.GetDefaultClient(), queue).Create(ctx, agent.CreateOptions{ID: "measured",
		Options: signals.AgentOptions{Hooks: []string{}, Tools: []string{"calculate"}}, First: `/tool calculate {"expression":"6*7"}`})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	m := scrape(t, endpoint.URL)
	require.Equal(t, 1.0, m[`tether_turns_total{outcome="completed"}`])
	require.Equal(t, 2.0, m[`tether_steps_total`])
	require.Equal(t, 1.0, m[`tether_tool_calls_total{outcome="ok",tool="calculate"}`])
	require.Equal(t, 1.0, m[`tether_tool_duration_seconds_count{outcome="ok",tool="calculate"}`])
	require.Equal(t, 2.0, m[`tether_model_call_duration_seconds_count{model="scripted-demo",outcome="ok",provider="scripted"}`])
	require.Positive(t, m[`tether_model_tokens_total{model="scripted-demo",provider="scripted",type="input"}`])
	require.Positive(t, m[`tether_model_tokens_total{model="scripted-demo",provider="scripted",type="output"}`])
	require.Equal(t, 1.0, m[`tether_agents_cached`], "the idle agent stays in the worker's cache")
	require.Positive(t, m[`temporal_workflow_task_queue_poll_succeed_total`], "the SDK's own worker metrics")
	require.Equal(t, 2.0, m[`temporal_activity_execution_latency_seconds_count`], "two model calls")
	require.Equal(t, 1.0, m[`temporal_local_activity_total`], "calculate runs as a local activity")
	require.Positive(t, m[`go_goroutines`])
}

// scrape reads a Prometheus text page as "name{labels}" → value, with the
// labels of Tether's metrics only: the SDK's carry the worker's namespace,
// task queue and type, summed over here. A histogram gives its count as
// "name_count{labels}".
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	out, err := readMetrics(url)
	require.NoError(t, err)
	return out
}

// readMetrics is scrape for a goroutine of its own (require.Eventually's
// condition), where a test may not fail.
func readMetrics(url string) (map[string]float64, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	families, err := new(expfmt.TextParser).TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for name, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+`="`+l.GetValue()+`"`)
			}
			key := func(name string) string {
				if len(labels) == 0 || !strings.HasPrefix(name, "tether_") {
					return name
				}
				return name + "{" + strings.Join(labels, ",") + "}"
			}
			switch {
			case m.GetCounter() != nil:
				out[key(name)] += m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[key(name)] += m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				out[key(name+"_count")] += float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out, nil
}
