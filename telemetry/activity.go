package telemetry

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/signals"
)

func (i *tether) InterceptActivity(_ context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	a := &activityInbound{t: i.t}
	a.Next = next
	return a
}

// activityInbound measures Tether's model and tool activities and gives
// their log lines the agent, run, turn and step they work for.
type activityInbound struct {
	interceptor.ActivityInboundInterceptorBase
	t *Telemetry
	// fields are added to every log line of this activity execution; set
	// before the activity runs, read by its outbound GetLogger.
	fields []any
}

func (a *activityInbound) Init(outbound interceptor.ActivityOutboundInterceptor) error {
	o := &activityOutbound{in: a}
	o.Next = outbound
	return a.Next.Init(o)
}

type activityOutbound struct {
	interceptor.ActivityOutboundInterceptorBase
	in *activityInbound
}

func (o *activityOutbound) GetLogger(ctx context.Context) log.Logger {
	if len(o.in.fields) == 0 {
		return o.Next.GetLogger(ctx)
	}
	return log.With(o.Next.GetLogger(ctx), o.in.fields...)
}

func (a *activityInbound) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	switch arg := firstArg(in.Args).(type) {
	case signals.ModelInput:
		return a.model(ctx, in, arg)
	case signals.ToolInput:
		return a.tool(ctx, in, arg)
	}
	return a.Next.ExecuteActivity(ctx, in)
}

// model measures one model call attempt: its latency and tokens by provider
// and model, the GenAI attributes of its RunActivity span, one log line.
func (a *activityInbound) model(ctx context.Context, in *interceptor.ExecuteActivityInput, mi signals.ModelInput) (any, error) {
	info := activity.GetInfo(ctx)
	provider := first(mi.Call.Provider, a.t.provider)
	turn, step := mi.Call.Turn, mi.Call.Step
	if turn == 0 { // a call that leaves them to its ID (loop.RulesCallFromHeader)
		turn, step, _ = signals.ParseModelActivityID(info.ActivityID)
	}
	a.fields = []any{"agent", info.WorkflowExecution.ID, "run", info.WorkflowExecution.RunID,
		"turn", turn, "step", step, "provider", provider}
	if mi.Call.Model != "" {
		a.fields = append(a.fields, "model", mi.Call.Model)
	}
	start := time.Now()
	res, err := a.Next.ExecuteActivity(ctx, in)
	took := time.Since(start)
	out, _ := res.(signals.ModelOutput)
	provider, model := first(out.Provider, provider), first(out.Model, mi.Call.Model)
	outcome := failureKind(ctx, err)
	labels := []attribute.KeyValue{attribute.String("provider", provider), attribute.String("model", model)}
	a.t.metrics.modelCall.Record(context.Background(), took.Seconds(),
		metric.WithAttributes(append(labels, attribute.String("outcome", outcome))...))
	a.t.metrics.tokens.Add(context.Background(), out.Usage.InputTokens, metric.WithAttributes(append(labels, attribute.String("type", "input"))...))
	a.t.metrics.tokens.Add(context.Background(), out.Usage.OutputTokens, metric.WithAttributes(append(labels, attribute.String("type", "output"))...))
	op := "chat"
	if mi.Call.Summarize != nil {
		op = "summarize"
	}
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.String("gen_ai.operation.name", op), attribute.String("gen_ai.system", provider),
		attribute.String("gen_ai.provider.name", provider), attribute.String("gen_ai.request.model", first(mi.Call.Model, model)),
		attribute.String("gen_ai.response.model", model),
		attribute.Int64("gen_ai.usage.input_tokens", out.Usage.InputTokens), attribute.Int64("gen_ai.usage.output_tokens", out.Usage.OutputTokens))
	logger := activity.GetLogger(ctx)
	if err != nil {
		span.SetAttributes(attribute.String("error.type", outcome))
		logger.Warn("Model call failed", "operation", op, "outcome", outcome, "duration_ms", took.Milliseconds(), "error", err)
		return res, err
	}
	span.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(out.FinishReason)}))
	logger.Info("Model call finished", "operation", op, "response_model", model, "finish_reason", string(out.FinishReason),
		"input_tokens", out.Usage.InputTokens, "output_tokens", out.Usage.OutputTokens,
		"tool_calls", len(out.ToolCalls), "duration_ms", took.Milliseconds())
	return res, err
}

// tool measures one tool call attempt: its latency by tool and outcome, the
// tool attributes of its RunActivity span, one log line.
func (a *activityInbound) tool(ctx context.Context, in *interceptor.ExecuteActivityInput, ti signals.ToolInput) (any, error) {
	info := activity.GetInfo(ctx)
	turn, step := turnStep(info.WorkflowExecution.ID, ti.IdempotencyKey)
	a.fields = []any{"agent", info.WorkflowExecution.ID, "run", info.WorkflowExecution.RunID,
		"turn", turn, "step", step, "tool", ti.Name, "call_id", ti.CallID}
	start := time.Now()
	res, err := a.Next.ExecuteActivity(ctx, in)
	took := time.Since(start)
	out, _ := res.(signals.ToolOutput)
	outcome := "ok"
	switch {
	case err != nil && (temporal.IsCanceledError(err) || errors.Is(err, context.Canceled)):
		outcome = "canceled"
	case err != nil:
		outcome = "failed"
	case out.IsError:
		outcome = "error"
	}
	a.t.metrics.toolCall.Record(context.Background(), took.Seconds(),
		metric.WithAttributes(attribute.String("tool", ti.Name), attribute.String("outcome", outcome)))
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", ti.Name),
		attribute.String("gen_ai.tool.call.id", ti.CallID), attribute.String("tether.tool.outcome", outcome))
	logger := activity.GetLogger(ctx)
	if err != nil {
		span.SetAttributes(attribute.String("error.type", outcome))
		logger.Warn("Tool call failed", "outcome", outcome, "attempt", info.Attempt, "duration_ms", took.Milliseconds(), "error", err)
		return res, err
	}
	logger.Info("Tool call finished", "outcome", outcome, "duration_ms", took.Milliseconds())
	return res, err
}

// failureKind is "ok", or the kind of a failed model call: the
// ApplicationError's Type (an eventlog.FailureKind), canceled, or error.
func failureKind(ctx context.Context, err error) string {
	var app *temporal.ApplicationError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &app):
		return app.Type()
	case temporal.IsCanceledError(err) || ctx.Err() != nil:
		return "canceled"
	default:
		return "error"
	}
}

// turnStep reads turn and step from a tool call's idempotency key,
// "<agent>/<turn>/<step>/<call ID>" (signals.IdempotencyKey).
func turnStep(agent, key string) (turn, step int) {
	rest, ok := strings.CutPrefix(key, agent+"/")
	if !ok {
		return 0, 0
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 3 {
		return 0, 0
	}
	turn, _ = strconv.Atoi(parts[0])
	step, _ = strconv.Atoi(parts[1])
	return turn, step
}
