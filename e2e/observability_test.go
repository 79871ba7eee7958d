package e2e

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/telemetry"
	"github.com/tetherdev/tether/workflows"
)

// A real turn on a real server, traced and measured: one trace for the
// turn, its steps, model calls with the GenAI attributes and the tool call,
// the SDK's activity spans under them; counters from the log. Replaying the
// agent's history with the same telemetry emits no span and counts nothing.
func TestATracedTurnIsOneTraceAndItsReplayEmitsNothing(t *testing.T) {
	spans, reader := tracetest.NewInMemoryExporter(), sdkmetric.NewManualReader()
	tel, err := telemetry.New(telemetry.Options{SpanExporter: spans, MeterProvider: telemetry.NewMeterProvider(reader, nil)})
	require.NoError(t, err)
	e := newEnv(t)
	e.cfg.Observer, e.interceptors = tel.Observer(), tel.WorkerInterceptors()
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)

	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "traced",
		Options: signals.AgentOptions{Tools: []string{"echo"}}, First: `/tool echo {"text":"a private prompt"}`})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	require.NoError(t, tel.ForceFlush(ctx))
	ended := spans.GetSpans()

	turn := only(t, ended, "turn")
	require.Equal(t, "completed", attr(turn, "tether.turn.outcome").AsString())
	tree := inTrace(ended, turn.SpanContext.TraceID())
	steps := named(tree, "step")
	require.Len(t, steps, 2)
	chats := named(tree, "chat scripted-demo")
	require.Len(t, chats, 2)
	for i, chat := range chats {
		require.Equal(t, steps[i].SpanContext.SpanID(), chat.Parent.SpanID())
		require.Equal(t, "scripted", attr(chat, "gen_ai.system").AsString())
		require.Equal(t, "scripted-demo", attr(chat, "gen_ai.request.model").AsString())
		require.Positive(t, attr(chat, "gen_ai.usage.input_tokens").AsInt64())
		require.Positive(t, attr(chat, "gen_ai.usage.output_tokens").AsInt64())
		run := childOf(t, tree, childOf(t, tree, chat, "StartActivity:"+signals.ModelActivity), "RunActivity:"+signals.ModelActivity)
		require.Equal(t, attr(chat, "gen_ai.usage.input_tokens"), attr(run, "gen_ai.usage.input_tokens"))
	}
	require.Equal(t, []string{"tool_calls"}, attr(chats[0], "gen_ai.response.finish_reasons").AsStringSlice())
	require.Equal(t, []string{"stop"}, attr(chats[1], "gen_ai.response.finish_reasons").AsStringSlice())
	tool := only(t, tree, "execute_tool echo")
	require.Equal(t, steps[0].SpanContext.SpanID(), tool.Parent.SpanID())
	require.Equal(t, "ok", attr(tool, "tether.tool.outcome").AsString())
	require.NotEmpty(t, attr(tool, "gen_ai.tool.call.id").AsString())
	childOf(t, tree, childOf(t, tree, tool, "StartActivity:"+signals.ToolActivity), "RunActivity:"+signals.ToolActivity)
	require.Empty(t, named(ended, "RunWorkflow:"+signals.AgentWorkflow), "no span per cache load")
	for _, s := range ended {
		for _, kv := range s.Attributes {
			require.NotContains(t, kv.Value.String(), "private prompt", "%s %s", s.Name, kv.Key)
		}
	}
	// A second turn through an update: its handler has a span of its own,
	// which replay must not emit again.
	_, err = h.Followup(ctx, "/say done", agent.Acknowledged())
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	require.NoError(t, tel.ForceFlush(ctx))
	require.Len(t, named(spans.GetSpans(), "HandleUpdate:"+signals.FollowupUpdate.Name), 1)
	require.Len(t, named(spans.GetSpans(), "turn"), 2)

	counts := func() map[string]int64 { return sums(t, reader) }
	before := counts()
	require.Equal(t, int64(2), before["tether.turns outcome=completed"])
	require.Equal(t, int64(3), before["tether.steps "])
	require.Equal(t, int64(1), before["tether.tool.calls outcome=ok,tool=echo"])
	require.Positive(t, before["tether.model.tokens model=scripted-demo,provider=scripted,type=input"])
	require.Equal(t, int64(1), before["tether.agents.cached "], "the idle agent stays in the worker's cache")

	require.NoError(t, h.Dispose(ctx, "test over"))
	require.NoError(t, e.c.GetWorkflow(ctx, h.ID, "").Get(ctx, nil))
	require.NoError(t, tel.ForceFlush(ctx))
	ended, before = spans.GetSpans(), counts()
	require.Zero(t, before["tether.agents.cached "], "an ended agent leaves the cache")

	events, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Interceptors: tel.WorkerInterceptors()})
	require.NoError(t, err)
	hooks, enabled := hook.Defaults()
	r.RegisterWorkflowWithOptions(workflows.Agent{Config: workflows.Config{Hooks: hooks, DefaultHooks: enabled,
		Observer: tel.Observer()}}.Run, workflow.RegisterOptions{Name: signals.AgentWorkflow})
	require.NoError(t, r.ReplayWorkflowHistory(nil, &historypb.History{Events: events}))
	require.NoError(t, tel.ForceFlush(ctx))
	require.Len(t, spans.GetSpans(), len(ended), "replay emitted no span")
	require.Equal(t, before, counts(), "replay counted nothing")
}

// A worker stopped mid-turn, during a wait: the next worker replays the run
// and finishes the turn's spans. The turn is still one trace with each span
// emitted once, the first worker's under the parents the second one ends,
// and the second worker counts only what happened after it took over.
func TestATurnTakenOverByAnotherWorkerIsStillOneTraceWithEachSpanOnce(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	traced := func() (*telemetry.Telemetry, *sdkmetric.ManualReader) {
		reader := sdkmetric.NewManualReader()
		tel, err := telemetry.New(telemetry.Options{SpanExporter: spans, MeterProvider: telemetry.NewMeterProvider(reader, nil)})
		require.NoError(t, err)
		return tel, reader
	}
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	first, firstCounts := traced()
	e.cfg.Observer, e.interceptors = first.Observer(), first.WorkerInterceptors()
	w := e.startWorker()
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "taken-over",
		Options: signals.AgentOptions{Tools: []string{signals.WaitTool}}, First: `/tool wait {"seconds":3}`})
	require.NoError(t, err)
	waitFor(t, 30*time.Second, "the wait to start", func() bool {
		st, err := h.Status(ctx)
		return err == nil && len(st.Waits) == 1
	})
	w.Stop()
	require.NoError(t, first.ForceFlush(ctx)) // not Shutdown: it would clear the shared in-memory exporter
	before := spans.GetSpans()
	require.Empty(t, named(before, "turn"), "the turn had not ended")
	require.Len(t, named(before, "chat scripted-demo"), 1, "the first model call had")

	second, secondCounts := traced()
	e.cfg.Observer, e.interceptors = second.Observer(), second.WorkerInterceptors()
	e.startWorker()
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	require.NoError(t, second.ForceFlush(ctx))
	all := spans.GetSpans()

	seen := map[trace.SpanID]string{}
	for _, s := range all {
		require.NotContains(t, seen, s.SpanContext.SpanID(), "%s emitted twice", s.Name)
		seen[s.SpanContext.SpanID()] = s.Name
	}
	turn := only(t, all, "turn")
	tree := inTrace(all, turn.SpanContext.TraceID())
	queries := 0
	for _, s := range all {
		if strings.HasPrefix(s.Name, "HandleQuery:") { // the test's status polls, traces of their own
			queries++
			continue
		}
		require.Equal(t, turn.SpanContext.TraceID(), s.SpanContext.TraceID(), "%s in the turn's trace", s.Name)
	}
	require.Positive(t, queries, "the SDK's query handler spans")
	steps := named(tree, "step")
	require.Len(t, steps, 2)
	require.Equal(t, steps[0].SpanContext.SpanID(), named(before, "chat scripted-demo")[0].Parent.SpanID(),
		"the first worker's chat span is under the step the second one ended")
	require.Equal(t, steps[0].SpanContext.SpanID(), only(t, tree, "execute_tool "+signals.WaitTool).Parent.SpanID())
	require.Len(t, named(tree, "chat scripted-demo"), 2)
	require.Len(t, named(tree, "RunActivity:"+signals.ModelActivity), 2, "no model call ran twice")

	require.Equal(t, int64(1), sums(t, firstCounts)["tether.steps "])
	require.Zero(t, sums(t, firstCounts)["tether.turns outcome=completed"])
	after := sums(t, secondCounts)
	require.Equal(t, int64(1), after["tether.steps "], "only the step started after the take-over")
	require.Equal(t, int64(1), after["tether.turns outcome=completed"])
	require.NoError(t, h.Dispose(ctx, "test over"))
}

// resumed counts the runs a worker rebuilt by replaying from the start
// and then carried on: contexts that began replaying and later scheduled an
// activity for real. Queries replay too, but never carry on.
type resumed struct {
	interceptor.WorkerInterceptorBase
	n atomic.Int32
}

func (r *resumed) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	in := &resumedInbound{r: r}
	in.Next = next
	return in
}

type resumedInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	r         *resumed
	replaying bool // when the context began
	counted   bool
}

func (i *resumedInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(&resumedOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, in: i})
}

func (i *resumedInbound) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	i.replaying = workflow.IsReplaying(ctx)
	return i.Next.ExecuteWorkflow(ctx, in)
}

type resumedOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	in *resumedInbound
}

func (o *resumedOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	if o.in.replaying && !o.in.counted && !workflow.IsReplaying(ctx) {
		o.in.counted = true
		o.in.r.n.Add(1)
	}
	return o.Next.ExecuteActivity(ctx, activityType, args...)
}

// A worker that drops a run from its cache mid-turn (the server stopped
// sending its tasks to the worker's sticky queue, so the next one carries
// the whole history) replays it and finishes the turn: each span once, the
// step before the eviction counted once, the run counted once in the cache.
func TestATurnWhoseRunWasEvictedFromTheCacheIsStillOneTraceWithEachSpanOnce(t *testing.T) {
	spans, reader := tracetest.NewInMemoryExporter(), sdkmetric.NewManualReader()
	tel, err := telemetry.New(telemetry.Options{SpanExporter: spans, MeterProvider: telemetry.NewMeterProvider(reader, nil)})
	require.NoError(t, err)
	runs := &resumed{}
	e := newEnv(t)
	e.cfg.Observer, e.interceptors = tel.Observer(), append(tel.WorkerInterceptors(), runs)
	e.startWorker()
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "evicted",
		Options: signals.AgentOptions{Tools: []string{signals.WaitTool}}, First: `/tool wait {"seconds":5}`})
	require.NoError(t, err)
	// Not through the status query: a query may replay the run too.
	waitFor(t, 30*time.Second, "the first model call to end", func() bool {
		require.NoError(t, tel.ForceFlush(ctx))
		return len(named(spans.GetSpans(), "chat scripted-demo")) == 1
	})
	_, err = e.c.WorkflowService().ResetStickyTaskQueue(ctx, &workflowservice.ResetStickyTaskQueueRequest{
		Namespace: e.ts.GetDefaultNamespace(), Execution: &commonpb.WorkflowExecution{WorkflowId: h.ID}})
	require.NoError(t, err)
	// The eviction is mid-turn only if the wait has not ended yet: on a
	// loaded machine the wait for the span can outlast a short one.
	history := historyOf(ctx, t, e, h)
	models := 0
	for _, ev := range history {
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == signals.ModelActivity {
			models++
		}
	}
	require.Equal(t, 1, models, "the turn's wait ended before the eviction: the test saw no eviction mid-turn")
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, int32(1), runs.n.Load(), "the worker replayed the run from the start and carried on")
	require.NoError(t, tel.ForceFlush(ctx))

	all := spans.GetSpans()
	seen := map[trace.SpanID]string{}
	for _, s := range all {
		require.NotContains(t, seen, s.SpanContext.SpanID(), "%s emitted twice", s.Name)
		seen[s.SpanContext.SpanID()] = s.Name
	}
	turn := only(t, all, "turn")
	tree := inTrace(all, turn.SpanContext.TraceID())
	steps := named(tree, "step")
	require.Len(t, steps, 2)
	require.Len(t, named(tree, "chat scripted-demo"), 2)
	require.Equal(t, steps[0].SpanContext.SpanID(), only(t, tree, "execute_tool "+signals.WaitTool).Parent.SpanID())
	counts := sums(t, reader)
	require.Equal(t, int64(2), counts["tether.steps "], "the step before the eviction counted once")
	require.Equal(t, int64(1), counts["tether.turns outcome=completed"])
	require.Equal(t, int64(1), counts["tether.agents.cached "])
	require.NoError(t, h.Dispose(ctx, "test over"))
}

func only(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	found := named(spans, name)
	require.Len(t, found, 1, name)
	return found[0]
}

// named are the spans called name, in the order they started.
func named(spans tracetest.SpanStubs, name string) tracetest.SpanStubs {
	var out tracetest.SpanStubs
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].StartTime.Before(out[j-1].StartTime); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func inTrace(spans tracetest.SpanStubs, id trace.TraceID) tracetest.SpanStubs {
	var out tracetest.SpanStubs
	for _, s := range spans {
		if s.SpanContext.TraceID() == id {
			out = append(out, s)
		}
	}
	return out
}

// childOf is parent's only child called name.
func childOf(t *testing.T, spans tracetest.SpanStubs, parent tracetest.SpanStub, name string) tracetest.SpanStub {
	t.Helper()
	var found tracetest.SpanStubs
	for _, s := range named(spans, name) {
		if s.Parent.SpanID() == parent.SpanContext.SpanID() {
			found = append(found, s)
		}
	}
	require.Len(t, found, 1, "%s under %s", name, parent.Name)
	return found[0]
}

func attr(s tracetest.SpanStub, key attribute.Key) attribute.Value {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// sums reads every integer sum as "name attrs" → value.
func sums(t *testing.T, reader *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, dp := range sum.DataPoints {
					out[m.Name+" "+dp.Attributes.Encoded(attribute.DefaultEncoder())] += dp.Value
				}
			}
		}
	}
	return out
}
