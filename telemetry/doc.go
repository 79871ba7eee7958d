// Package telemetry traces, measures and logs Tether agents on a worker,
// with OpenTelemetry and Temporal's go.temporal.io/sdk/contrib/opentelemetry.
//
// Traces: one trace per turn. The workflow side is built from the session
// events the loop records (workflows.Observer): a turn span, a span per
// step, a "chat {model}" span per model call with the GenAI semantic
// convention attributes, and an "execute_tool {name}" span per tool call.
// Their IDs are derived from durable facts (namespace, workflow ID, the
// chain's first run ID, turn, step, call ID), so a span's parent is known
// before the parent ends and a worker that replays a run after losing its
// cache emits the spans the first one did not; spans are emitted once, when
// the event that closes them is recorded outside replay. A workflow task the
// server refused (its cached state went stale) runs again from history and
// records again what was never committed; the worker remembers the last
// 16,384 spans (and turn, step and compaction starts) it emitted and emits
// or counts none of them again.
// A task retried on another worker is emitted there too, under the same
// span IDs. The SDK's tracing
// interceptor adds its activity spans under them (StartActivity and
// RunActivity of each model and tool call), its signal, update and query
// spans, and propagates the context to the log queries the activities make.
// Its RunWorkflow span is dropped: it is started each time a worker loads a
// run into its cache (replay included) and ends when the run ends or is
// evicted, which for an agent means weeks, so it measures cache residency
// and would be emitted again on every replay; update spans are dropped
// during replay for the same reason.
//
// Metrics: turns by outcome, steps, retry turns, compactions and tool calls
// by outcome are counted from recorded events outside replay, so replay
// never counts twice; model call latency and tokens (by provider and model)
// and tool latency (by tool and outcome) are measured around the
// activities, which never replay; the agent runs a worker holds in memory
// are a gauge. The SDK's own worker metrics go to the same meter provider
// through MetricsHandler.
//
// Logs: activity log lines (activity.GetLogger) carry agent, run, turn and
// step, and the tool or the provider and model; the observer logs each turn's
// start and end. No span attribute, metric label or log line holds a prompt,
// a completion, a tool's arguments or result, or a failure's free text.
//
// Never: decide anything for a run, block the workflow, or read the
// environment (package telemetryfx configures it).
package telemetry
