package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// replaySafe is the SDK's tracing interceptor without the spans it would
// emit again on replay: RunWorkflow (each time a worker loads a run) and
// HandleUpdate during replay. Its other workflow spans already skip replay.
type replaySafe struct {
	interceptor.InterceptorBase
	tracing interceptor.Interceptor
}

func (r *replaySafe) InterceptClient(next interceptor.ClientOutboundInterceptor) interceptor.ClientOutboundInterceptor {
	return r.tracing.InterceptClient(next)
}

func (r *replaySafe) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return r.tracing.InterceptActivity(ctx, next)
}

func (r *replaySafe) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &replaySafeInbound{WorkflowInboundInterceptor: r.tracing.InterceptWorkflow(ctx, next), plain: next}
}

func (r *replaySafe) InterceptNexusOperation(ctx context.Context, next interceptor.NexusOperationInboundInterceptor) interceptor.NexusOperationInboundInterceptor {
	return r.tracing.InterceptNexusOperation(ctx, next)
}

type replaySafeInbound struct {
	interceptor.WorkflowInboundInterceptor // the SDK's tracing
	plain                                  interceptor.WorkflowInboundInterceptor
}

func (r *replaySafeInbound) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	return r.plain.ExecuteWorkflow(ctx, in)
}

func (r *replaySafeInbound) ExecuteUpdate(ctx workflow.Context, in *interceptor.UpdateInput) (any, error) {
	if workflow.IsReplaying(ctx) {
		return r.plain.ExecuteUpdate(ctx, in)
	}
	return r.WorkflowInboundInterceptor.ExecuteUpdate(ctx, in)
}

// tether is Tether's own interceptor: the run state an agent's observer and
// its calls share, the cached-agents gauge, parents for the SDK's activity
// spans, and activity metrics and log fields (activity.go).
type tether struct {
	interceptor.InterceptorBase
	t *Telemetry
}

// stateKey is where a run's *runState is kept in its workflow context.
type stateKey struct{}

func (i *tether) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	w := &workflowInbound{t: i.t}
	w.Next = next
	return w
}

type workflowInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	t *Telemetry
}

func (w *workflowInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	o := &workflowOutbound{t: w.t}
	o.Next = outbound
	return w.Next.Init(o)
}

// ExecuteWorkflow gives an agent run the state its observer keeps, and
// counts it while this worker holds it: from its first workflow task (or
// its replay after the worker lost its cache) until it ends or is evicted.
func (w *workflowInbound) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	info := workflow.GetInfo(ctx)
	if info.WorkflowType.Name != signals.AgentWorkflow {
		return w.Next.ExecuteWorkflow(ctx, in)
	}
	ctx = workflow.WithValue(ctx, stateKey{}, newRunState(info))
	w.t.metrics.cached.Add(context.Background(), 1)
	defer w.t.metrics.cached.Add(context.Background(), -1)
	return w.Next.ExecuteWorkflow(ctx, in)
}

func newRunState(info *workflow.Info) *runState {
	return &runState{ids: newChain(info.Namespace, info.WorkflowExecution.ID, info.FirstRunID),
		agent: info.WorkflowExecution.ID, run: info.WorkflowExecution.RunID}
}

type workflowOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	t *Telemetry
}

func (o *workflowOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	return o.Next.ExecuteActivity(o.t.parented(ctx, activityType, args), activityType, args...)
}

func (o *workflowOutbound) ExecuteLocalActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	return o.Next.ExecuteLocalActivity(o.t.parented(ctx, activityType, args), activityType, args...)
}

func (o *workflowOutbound) ExecuteChildWorkflow(ctx workflow.Context, childWorkflowType string, args ...any) workflow.ChildWorkflowFuture {
	return o.Next.ExecuteChildWorkflow(o.t.parented(ctx, childWorkflowType, args), childWorkflowType, args...)
}

// parented hands the SDK's tracing the span a call made during a turn
// belongs to: a model call's chat span, a tool call's execute_tool span,
// else the open step or the turn. Outside a turn the call keeps no parent.
func (t *Telemetry) parented(ctx workflow.Context, name string, args []any) workflow.Context {
	if t.sdkTracer == nil || workflow.IsReplaying(ctx) {
		return ctx
	}
	s, _ := ctx.Value(stateKey{}).(*runState)
	if s == nil || s.turn == nil {
		return ctx
	}
	sc := s.parentFor(name, args)
	parent := t.sdkTracer.SpanFromContext(trace.ContextWithSpanContext(context.Background(), sc))
	return workflow.WithValue(ctx, sdkSpanKey{}, parent)
}

func (s *runState) parentFor(name string, args []any) trace.SpanContext {
	t := s.turn
	if t.step == nil {
		return s.ids.spanContext(t.n, s.ids.turnSpan(t.n))
	}
	id := s.ids.stepSpan(t.n, t.step.n)
	switch in := firstArg(args).(type) {
	case signals.ModelInput:
		if name == signals.ModelActivity && in.Call.Summarize == nil {
			id = s.ids.chatSpan(t.n, t.step.n)
		}
	case signals.ToolInput:
		if name == signals.ToolActivity {
			id = s.ids.toolSpan(t.n, t.step.n, in.CallID)
		}
	}
	return s.ids.spanContext(t.n, id)
}

func firstArg(args []any) any {
	if len(args) == 0 {
		return nil
	}
	return args[0]
}

// Observer is the workflows.Observer of the agent workflow's Config.
func (t *Telemetry) Observer() workflows.Observer { return observer{t: t} }

type observer struct{ t *Telemetry }

// Run watches a run with the state its interceptor made, or its own when
// the run has no interceptor.
func (o observer) Run(ctx workflow.Context) workflows.RunObserver {
	s, _ := ctx.Value(stateKey{}).(*runState)
	if s == nil {
		s = newRunState(workflow.GetInfo(ctx))
	}
	return &runObserver{t: o.t, s: s}
}

type runObserver struct {
	t *Telemetry
	s *runState
}

func (r *runObserver) Recorded(ctx workflow.Context, events []eventlog.Envelope) {
	var em *emitter
	if !workflow.IsReplaying(ctx) {
		em = &emitter{t: r.t, log: workflow.GetLogger(ctx)}
	}
	for _, env := range events {
		r.s.apply(env, em)
	}
}
