package workflows

import (
	"encoding/json"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

// Config holds worker-level knobs of the agent workflow. Changing them affects
// only commands scheduled afterwards, never replay.
type Config struct {
	// ModelTimeout bounds one model call attempt: the activity ends the call
	// as a timeout failure when it is up (its StartToClose timeout is
	// signals.ActivityGrace longer, for an attempt that cannot report).
	ModelTimeout time.Duration
	// ModelHeartbeat is the model activity's heartbeat timeout: a worker that
	// dies mid-call is noticed within it, and the call runs again.
	ModelHeartbeat time.Duration
	// ModelDeadline bounds a model call across all its attempts
	// (ScheduleToClose): the last resort when faults keep ending them. A
	// failed call is never retried by Temporal: it closes its step and the
	// request-error hooks (the retry policy) decide, opening a retry turn.
	ModelDeadline time.Duration
	// ToolTimeout bounds one tool attempt; running past it is the tool's
	// own failure, which counts against ToolAttempts.
	ToolTimeout time.Duration
	// ToolHeartbeat is the tool activity's heartbeat timeout.
	ToolHeartbeat time.Duration
	// ToolAttempts is how many of a tool call's own failures (its errors, its
	// timeout) end it: after the last the model sees an error result.
	// Attempts lost to faults (a worker that died or lost the server) never
	// count; the same budget bounds a compaction summary's own failures.
	ToolAttempts int32
	// ToolDeadline bounds a tool call across all its attempts
	// (ScheduleToClose), the last resort when faults keep ending them.
	ToolDeadline time.Duration
	// NoSearchAttributes turns off search attribute upserts, for namespaces
	// where Tether's attributes are not registered.
	NoSearchAttributes bool
	// Hooks are the hooks registered on this worker; agents enable them by
	// name. Every worker of a task queue must register the same hooks: they
	// run in workflow code.
	Hooks []hook.Hook
	// DefaultHooks are enabled for agents whose options name none.
	DefaultHooks []string
	// StreamHooks name the llm/stream hooks the worker's model activity
	// has (activities.StreamHook); agents enable them like other hooks.
	StreamHooks []string
	// Profiles are the named kinds of child agent spawn_agent may start.
	Profiles map[string]signals.Profile
	// Tools and Providers name what the worker offers, sorted; a new agent
	// naming anything else is refused. Nil leaves them unchecked.
	Tools     []string
	Providers []string
	// ToolModes are the execution modes of the worker's tools by name;
	// tools not listed run in parallel.
	ToolModes map[string]signals.ToolMode
	// LocalTools run as local activities (fast tools).
	LocalTools []string
	// Per-run limits: an agent continues as new at the next turn boundary
	// once its run reaches one, or when Temporal suggests it. Zero means no
	// limit of that kind.
	MaxRunTurns  int
	MaxRunEvents int
	MaxRunBytes  int
	// UpgradeAfterTurns, for a worker with Worker Deployment Versioning
	// (RegisterVersioned): a run that has taken this many turns continues
	// as new at its next turn boundary once the server reports that the
	// deployment's target version is no longer the one the run is pinned
	// to, so a busy agent moves to new code within that many turns of a
	// deploy. Zero waits for the other limits (or an upgrade task). An
	// unversioned worker ignores it.
	UpgradeAfterTurns int
	// MaxSeedBytes bounds the model context a Continue-As-New seed carries;
	// a larger one is compacted first. 0 means DefaultMaxSeedBytes.
	MaxSeedBytes int
	// Observer, when set, watches every run (traces, metrics, logs); it
	// never changes what a run does.
	Observer Observer
	// Snapshots, when set, receives every run's session log in this worker
	// process, for the activities it runs (see Snapshots). It never changes
	// what the workflow records or how it replays.
	Snapshots Snapshots
	// Feeds, when set, says where this worker streams agents' model calls,
	// for the feed query (see Feeds).
	Feeds Feeds
	// Arguments, when set, checks the arguments a person edits a call to
	// before approving it; without it edits are refused.
	Arguments ArgumentChecker
}

// ArgumentChecker checks a tool call's arguments against the tool's
// schema: schema is the input schema an MCP server listed for its tool,
// nil for the worker's own tools (the checker knows theirs). It runs in
// the approve update's validator, which never runs on replay, so it may
// change between builds; it must be safe for concurrent use.
type ArgumentChecker interface {
	CheckArguments(tool string, schema, args json.RawMessage) error
}

// Defaults for Config fields left zero.
const (
	DefaultModelTimeout = 10 * time.Minute
	// DefaultHeartbeat is the default heartbeat timeout of model and tool
	// calls: a dead worker's call runs again within a few seconds. The
	// worker sends a heartbeat RPC every couple of seconds per running call
	// (see fx/workerfx), well inside it.
	DefaultHeartbeat      = 5 * time.Second
	DefaultModelHeartbeat = DefaultHeartbeat
	DefaultToolTimeout    = 10 * time.Minute
	DefaultToolHeartbeat  = DefaultHeartbeat
	DefaultToolAttempts   = signals.DefaultAttempts
	// DefaultDeadline is the least overall deadline of a model or tool
	// call; a longer one is used when the call's own attempts may take more.
	DefaultDeadline = time.Hour
	// DefaultLocalToolTimeout bounds a fast tool run as a local activity.
	DefaultLocalToolTimeout = 30 * time.Second
	// DefaultMaxSeedBytes keeps a seed far below Temporal's 2 MiB payload limit.
	DefaultMaxSeedBytes = 512 << 10
)

func (c Config) withDefaults() Config {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	set(&c.ModelTimeout, DefaultModelTimeout)
	set(&c.ModelHeartbeat, DefaultModelHeartbeat)
	set(&c.ToolTimeout, DefaultToolTimeout)
	set(&c.ToolHeartbeat, DefaultToolHeartbeat)
	if c.ToolAttempts <= 0 {
		c.ToolAttempts = DefaultToolAttempts
	}
	// Twice what the call's own attempts may take, so faults leave room.
	set(&c.ModelDeadline, max(DefaultDeadline, 2*time.Duration(c.ToolAttempts)*(c.ModelTimeout+signals.ActivityGrace)))
	set(&c.ToolDeadline, max(DefaultDeadline, 2*time.Duration(c.ToolAttempts)*(c.ToolTimeout+signals.ActivityGrace)))
	if c.MaxSeedBytes <= 0 {
		c.MaxSeedBytes = DefaultMaxSeedBytes
	}
	return c
}

// faultRetries is the retry policy of model and tool calls: no attempt
// limit, since Temporal retries only what the call did not decide itself
// (an attempt lost to a fault, a log read that failed while the workflow
// had no worker); a call's own failures are final (model) or counted by the
// activity (tool, summary; signals.ToolFailure) with its own backoff. The
// overall deadline is the bound. Faults back off briefly: the heartbeat
// timeout has already waited.
func faultRetries() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    10 * time.Second,
		MaximumAttempts:    0,
	}
}

// modelOptions: a model call attempts until it answers or fails on its own
// account; the activity marks every failure non-retryable itself, so the
// retry policy needs no list of error types in every scheduled event.
func (c Config) modelOptions(id, summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		ActivityID:             id,
		Summary:                summary,
		StartToCloseTimeout:    c.ModelTimeout + signals.ActivityGrace,
		ScheduleToCloseTimeout: c.ModelDeadline,
		HeartbeatTimeout:       c.ModelHeartbeat,
		RetryPolicy:            faultRetries(),
	}
}

// summaryOptions: a summary of a fixed log prefix is idempotent, so unlike
// a model turn the activity retries its own failures (up to the input's
// attempt budget), and faults carry it to another worker like any call.
func (c Config) summaryOptions(id, summary string) workflow.ActivityOptions {
	return c.modelOptions(id, summary)
}

// localToolOptions: a fast tool runs inside the workflow task; a slow one
// does not belong here (mark it not Local). Its attempts start over when
// the workflow task is lost, so only its own failures reach the limit.
func (c Config) localToolOptions(summary string) workflow.LocalActivityOptions {
	return workflow.LocalActivityOptions{
		Summary:                summary,
		ScheduleToCloseTimeout: DefaultLocalToolTimeout,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: c.ToolAttempts,
		},
	}
}

// listOptions: the listing activity answers for every server itself
// (a server it cannot reach is an Error entry), so Temporal retries only
// faults, like any call, until ListToolsDeadline; a listing that fails for
// good leaves the step with the tools listed before.
func (c Config) listOptions(id, summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		ActivityID:             id,
		Summary:                summary,
		StartToCloseTimeout:    ListToolsTimeout,
		ScheduleToCloseTimeout: ListToolsDeadline,
		RetryPolicy:            faultRetries(),
	}
}

// Bounds of the MCP listing activity: one attempt, and all of them.
const (
	ListToolsTimeout  = 30 * time.Second
	ListToolsDeadline = 5 * time.Minute
)

// toolOptions: see faultRetries; the activity counts the tool's own
// failures against ToolAttempts.
func (c Config) toolOptions(id, summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		ActivityID:             id,
		Summary:                summary,
		StartToCloseTimeout:    c.ToolTimeout + signals.ActivityGrace,
		ScheduleToCloseTimeout: c.ToolDeadline,
		HeartbeatTimeout:       c.ToolHeartbeat,
		RetryPolicy:            faultRetries(),
	}
}
