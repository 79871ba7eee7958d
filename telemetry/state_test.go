package telemetry

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tlog "go.temporal.io/sdk/log"

	"github.com/tetherdev/tether/eventlog"
)

// fixture is a Telemetry over an in-memory exporter and a manual reader.
type fixture struct {
	t     *testing.T
	tel   *Telemetry
	spans *tracetest.InMemoryExporter
	reads *sdkmetric.ManualReader
	logs  bytes.Buffer
	state *runState
	at    time.Time
	seq   int64
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, spans: tracetest.NewInMemoryExporter(), reads: sdkmetric.NewManualReader(),
		at: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	tel, err := New(Options{SpanExporter: f.spans, MeterProvider: NewMeterProvider(f.reads, nil)})
	require.NoError(t, err)
	f.tel = tel
	f.state = &runState{ids: newChain("default", "a1", "run-0"), agent: "a1", run: "run-1"}
	return f
}

// record applies events one second apart; replaying applies them without
// an emitter, as the observer does during replay.
func (f *fixture) record(replaying bool, events ...eventlog.Event) {
	f.t.Helper()
	var em *emitter
	if !replaying {
		em = &emitter{t: f.tel, log: tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(&f.logs, nil)))}
	}
	for _, e := range events {
		env, err := eventlog.Encode(f.seq, f.at, "", e)
		require.NoError(f.t, err)
		f.seq++
		f.at = f.at.Add(time.Second)
		f.state.apply(env, em)
	}
}

func (f *fixture) ended() tracetest.SpanStubs {
	require.NoError(f.t, f.tel.ForceFlush(context.Background()))
	return f.spans.GetSpans()
}

func (f *fixture) counts(name string) map[string]int64 {
	var rm metricdata.ResourceMetrics
	require.NoError(f.t, f.reads.Collect(context.Background(), &rm))
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == name {
				for _, dp := range sum.DataPoints {
					out[dp.Attributes.Encoded(attribute.DefaultEncoder())] += dp.Value
				}
			}
		}
	}
	return out
}

func byName(spans tracetest.SpanStubs) map[string]tracetest.SpanStub {
	out := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		out[s.Name] = s
	}
	return out
}

func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes {
		out[kv.Key] = kv.Value
	}
	return out
}

var toolTurn = []eventlog.Event{
	eventlog.TurnStart{Turn: 1},
	eventlog.StepStart{Turn: 1, Step: 1, Provider: "openai", Model: "gpt-4o-mini"},
	eventlog.UserMessage{MessageID: "m0", Content: "the secret prompt"},
	eventlog.RequestHeader{Provider: "openai", Model: "gpt-4o-mini", MaxTokens: 1000},
	eventlog.RequestContext{Messages: 2, Tokens: 120},
	eventlog.AssistantMessage{ToolCalls: []eventlog.ToolCallRequest{{ID: "c1", Name: "echo", Arguments: []byte(`{}`)}},
		Usage: eventlog.Usage{InputTokens: 10, OutputTokens: 5}, FinishReason: eventlog.FinishToolCalls,
		Provider: "openai", Model: "gpt-4o-mini-2024"},
	eventlog.ToolCall{CallID: "c1", Name: "echo", IdempotencyKey: "a1/1/1/c1"},
	eventlog.ToolResult{CallID: "c1", Name: "echo", Content: "the secret result"},
	eventlog.StepEnd{Turn: 1, Step: 1},
	eventlog.StepStart{Turn: 1, Step: 2, Provider: "openai", Model: "gpt-4o-mini"},
	eventlog.RequestContext{Messages: 4, Tokens: 150},
	eventlog.AssistantMessage{Text: "the secret answer", Usage: eventlog.Usage{InputTokens: 20, OutputTokens: 7},
		FinishReason: eventlog.FinishStop, Provider: "openai", Model: "gpt-4o-mini-2024"},
	eventlog.StepEnd{Turn: 1, Step: 2},
	eventlog.TurnEnd{Turn: 1, Reason: eventlog.EndCompleted},
}

// A turn with a tool call becomes one trace: the turn, its steps, a chat
// span per model call with the GenAI attributes, an execute_tool span per
// call, each under the right parent and timed by the recorded events.
func TestATurnIsOneTraceOfStepsModelCallsAndToolCalls(t *testing.T) {
	f := newFixture(t)
	f.record(false, toolTurn...)
	spans := f.ended()
	require.Len(t, spans, 6)

	turn := byName(spans)["turn"]
	require.False(t, turn.Parent.IsValid())
	for _, s := range spans {
		require.Equal(t, turn.SpanContext.TraceID(), s.SpanContext.TraceID(), s.Name)
	}
	var steps, chats []tracetest.SpanStub
	for _, s := range spans {
		switch s.Name {
		case "step":
			steps = append(steps, s)
			require.Equal(t, turn.SpanContext.SpanID(), s.Parent.SpanID())
		case "chat gpt-4o-mini":
			chats = append(chats, s)
		}
	}
	require.Len(t, steps, 2)
	require.Len(t, chats, 2)
	require.Equal(t, steps[0].SpanContext.SpanID(), chats[0].Parent.SpanID())
	require.Equal(t, steps[1].SpanContext.SpanID(), chats[1].Parent.SpanID())
	tool := byName(spans)["execute_tool echo"]
	require.Equal(t, steps[0].SpanContext.SpanID(), tool.Parent.SpanID())

	chat := attrs(chats[0])
	require.Equal(t, "chat", chat["gen_ai.operation.name"].AsString())
	require.Equal(t, "openai", chat["gen_ai.system"].AsString())
	require.Equal(t, "gpt-4o-mini", chat["gen_ai.request.model"].AsString())
	require.Equal(t, "gpt-4o-mini-2024", chat["gen_ai.response.model"].AsString())
	require.Equal(t, int64(10), chat["gen_ai.usage.input_tokens"].AsInt64())
	require.Equal(t, int64(5), chat["gen_ai.usage.output_tokens"].AsInt64())
	require.Equal(t, []string{"tool_calls"}, chat["gen_ai.response.finish_reasons"].AsStringSlice())
	require.Equal(t, int64(1000), chat["gen_ai.request.max_tokens"].AsInt64())
	require.Equal(t, trace.SpanKindClient, chats[0].SpanKind)
	require.Equal(t, f.at.Add(-10*time.Second), chats[0].StartTime, "the call starts with request/context")
	require.Equal(t, f.at.Add(-9*time.Second), chats[0].EndTime, "and ends with the assistant message")

	ta := attrs(tool)
	require.Equal(t, "echo", ta["gen_ai.tool.name"].AsString())
	require.Equal(t, "c1", ta["gen_ai.tool.call.id"].AsString())
	require.Equal(t, "ok", ta["tether.tool.outcome"].AsString())
	require.Equal(t, codes.Unset, tool.Status.Code)

	require.Equal(t, "completed", attrs(turn)["tether.turn.outcome"].AsString())
	require.Equal(t, int64(2), attrs(turn)["tether.turn.steps"].AsInt64())
	require.Equal(t, "a1", attrs(turn)["tether.agent.id"].AsString())
	require.Equal(t, "a1", attrs(turn)["gen_ai.conversation.id"].AsString())
	require.Equal(t, f.at.Add(-14*time.Second), turn.StartTime)

	require.Equal(t, map[string]int64{"outcome=completed": 1}, f.counts("tether.turns"))
	require.Equal(t, map[string]int64{"": 2}, f.counts("tether.steps"))
	require.Equal(t, map[string]int64{"outcome=ok,tool=echo": 1}, f.counts("tether.tool.calls"))
	require.Equal(t, map[string]int64{"": 2}, f.counts("tether.steps"), "the turn's two steps, once each")
	for _, s := range spans {
		for _, kv := range s.Attributes {
			require.NotContains(t, kv.Value.String(), "secret", "%s %s", s.Name, kv.Key)
		}
	}
	require.NotContains(t, f.logs.String(), "secret")
	require.Contains(t, f.logs.String(), "msg=\"Turn ended\" agent=a1 run=run-1 turn=1 outcome=completed steps=2")
}

// A worker that lost its cache replays the start of a turn without
// emitting, then emits the turn's spans when it records their ends, with
// the times and IDs the first worker would have used.
func TestReplayEmitsNothingAndALaterWorkerFinishesTheTurnsSpans(t *testing.T) {
	first := newFixture(t)
	first.record(false, toolTurn[:7]...) // the first worker recorded up to the tool call, then died
	require.Len(t, first.ended(), 1, "only the first model call had ended")
	chat := first.ended()[0]

	second := newFixture(t)
	second.record(true, toolTurn[:7]...)
	require.Empty(t, second.ended(), "replay emits nothing")
	require.Empty(t, second.counts("tether.steps"), "nor counts")
	second.record(false, toolTurn[7:]...)
	spans := second.ended()
	require.Len(t, spans, 5, "the turn, both steps, the tool call and the second model call")
	turn := byName(spans)["turn"]
	require.Equal(t, chat.SpanContext.TraceID(), turn.SpanContext.TraceID(), "the same trace as the first worker's spans")
	require.Equal(t, chat.StartTime.Add(-4*time.Second), turn.StartTime, "the turn started when it was recorded")
	for _, s := range spans {
		if s.Name == "step" && attrs(s)["tether.step"].AsInt64() == 1 {
			require.Equal(t, s.SpanContext.SpanID(), chat.Parent.SpanID(), "the first worker's chat span is under the step")
		}
	}
	require.Equal(t, map[string]int64{"": 1}, second.counts("tether.steps"), "only the step started after replay")
}

// A failed model call marks its chat span and its turn; the retry turn is
// a trace of its own, linked to the failed one, and counted as a retry.
func TestAFailedCallAndItsRetryTurn(t *testing.T) {
	f := newFixture(t)
	f.record(false,
		eventlog.TurnStart{Turn: 2},
		eventlog.StepStart{Turn: 2, Step: 1, Provider: "anthropic", Model: "claude"},
		eventlog.AssistantAttempt{Failure: eventlog.Failure{Kind: eventlog.FailureRateLimit, Message: "slow down", StatusCode: 429},
			Provider: "anthropic", Model: "claude"},
		eventlog.StepEnd{Turn: 2, Step: 1},
		eventlog.TurnEnd{Turn: 2, Reason: eventlog.EndFailed, Error: "rate limited"},
		eventlog.TurnStart{Turn: 3, RetryOf: 2},
		eventlog.TurnEnd{Turn: 3, Reason: eventlog.EndCompleted},
	)
	spans := f.ended()
	var turns []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == "turn" {
			turns = append(turns, s)
		}
	}
	require.Len(t, turns, 2)
	failed, retry := turns[0], turns[1]
	require.Equal(t, codes.Error, failed.Status.Code)
	require.Equal(t, "failed", failed.Status.Description)
	require.NotEqual(t, failed.SpanContext.TraceID(), retry.SpanContext.TraceID())
	require.Len(t, retry.Links, 1)
	require.Equal(t, failed.SpanContext.SpanID(), retry.Links[0].SpanContext.SpanID())

	chat := byName(spans)["chat claude"]
	require.Equal(t, codes.Error, chat.Status.Code)
	require.Equal(t, "rate_limit", attrs(chat)["error.type"].AsString())
	require.Equal(t, int64(429), attrs(chat)["http.response.status_code"].AsInt64())
	for _, s := range spans {
		require.NotContains(t, s.Status.Description, "slow down")
	}
	require.Equal(t, map[string]int64{"outcome=failed": 1, "outcome=completed": 1}, f.counts("tether.turns"))
	require.Equal(t, map[string]int64{"": 1}, f.counts("tether.retry_turns"))
}

// Trace and span IDs depend only on durable facts, so every worker derives
// the same ones, and another chain (an agent ID used again) gets others.
func TestIDsAreDerivedFromTheChainAndTurn(t *testing.T) {
	c := newChain("default", "a1", "run-0")
	require.Equal(t, c.traceID(3), newChain("default", "a1", "run-0").traceID(3))
	require.NotEqual(t, c.traceID(3), c.traceID(4))
	require.NotEqual(t, c.traceID(3), newChain("default", "a1", "run-9").traceID(3))
	ids := map[trace.SpanID]bool{c.turnSpan(3): true, c.stepSpan(3, 1): true, c.chatSpan(3, 1): true,
		c.toolSpan(3, 1, "x"): true, c.stepSpan(3, 2): true}
	require.Len(t, ids, 5)
}

// A call the loop runs itself (a wait, a child, a question to a person)
// records no tool/call: its span starts with what the loop records instead.
func TestAWaitCallsSpanStartsWhenTheWaitStarted(t *testing.T) {
	f := newFixture(t)
	start := f.at
	f.record(false,
		eventlog.TurnStart{Turn: 1},
		eventlog.StepStart{Turn: 1, Step: 1, Provider: "openai", Model: "gpt-4o-mini"},
		eventlog.AssistantMessage{ToolCalls: []eventlog.ToolCallRequest{{ID: "w1", Name: "wait", Arguments: []byte(`{"seconds":60}`)}},
			FinishReason: eventlog.FinishToolCalls, Provider: "openai", Model: "gpt-4o-mini"},
		eventlog.WaitStarted{CallID: "w1", Until: start.Add(time.Minute)},
		eventlog.ToolResult{CallID: "w1", Name: "wait", Content: "waited"},
		eventlog.StepEnd{Turn: 1, Step: 1},
	)
	span := byName(f.ended())["execute_tool wait"]
	require.Equal(t, start.Add(3*time.Second), span.StartTime, "when wait/started was recorded")
	require.Equal(t, start.Add(4*time.Second), span.EndTime)
}

// Compactions are counted by kind, outside replay only.
func TestCompactionsAreCountedByKind(t *testing.T) {
	f := newFixture(t)
	f.record(true, eventlog.ContextCompacted{Text: "replayed summary", Keep: 2})
	f.record(false, eventlog.ContextCompacted{Text: "a summary", Keep: 4}, eventlog.ContextPruned{CallIDs: []string{"c1"}},
		eventlog.ContextPruned{CallIDs: []string{"c2"}})
	require.Equal(t, map[string]int64{"kind=summary": 1, "kind=prune": 2}, f.counts("tether.compactions"))
}

// A workflow task the server refused (its cached state went stale) runs
// again from history; what the first attempt recorded was never committed,
// so the second attempt records it again, not as replay. Each span, turn
// and tool call is still emitted and counted once, the first attempt's.
func TestARetriedWorkflowTaskEmitsItsSpansOnce(t *testing.T) {
	f := newFixture(t)
	f.record(false, toolTurn...)
	first := f.ended()
	require.Len(t, first, 6)

	f.state = &runState{ids: newChain("default", "a1", "run-0"), agent: "a1", run: "run-1"}
	f.at = f.at.Add(time.Minute) // the retried task runs later, at other times
	f.record(false, toolTurn...)
	require.Len(t, f.ended(), 6, "no span twice")
	require.Equal(t, first, f.ended())
	require.Equal(t, map[string]int64{"outcome=completed": 1}, f.counts("tether.turns"))
	require.Equal(t, map[string]int64{"outcome=ok,tool=echo": 1}, f.counts("tether.tool.calls"))
	require.Equal(t, map[string]int64{"": 2}, f.counts("tether.steps"), "the turn's two steps, once each")

	other := newChain("default", "a1", "run-9") // the agent ID reused: a new chain
	f.state = &runState{ids: other, agent: "a1", run: "run-9"}
	f.record(false, toolTurn...)
	require.Len(t, f.ended(), 12, "another chain's turn 1 is another trace")
}

func TestTheEmittedSetForgetsItsOldestFirst(t *testing.T) {
	e := newEmitted(2)
	var tr trace.TraceID
	a, b, c := trace.SpanID{1}, trace.SpanID{2}, trace.SpanID{3}
	require.True(t, e.first(tr, a))
	require.True(t, e.first(tr, b))
	require.False(t, e.first(tr, a))
	require.True(t, e.first(tr, c), "a is forgotten to make room")
	require.True(t, e.first(tr, a))
	require.False(t, e.first(tr, c))
	require.Len(t, e.seen, 2)
}
