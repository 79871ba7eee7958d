package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

// Config holds worker-level knobs of the agent workflow. Changing them affects
// only commands scheduled afterwards, never replay.
type Config struct {
	// ModelTimeout bounds one model activity attempt (StartToClose).
	ModelTimeout time.Duration
	// ModelHeartbeat is the model activity's heartbeat timeout: a worker that
	// dies mid-call is noticed within it.
	ModelHeartbeat time.Duration
	// ModelAttempts bounds Temporal's own attempts of one model call. The
	// default is 1: a failed call closes its step and the request-error
	// hooks (the retry policy) decide, opening a retry turn.
	ModelAttempts int32
	// ToolTimeout bounds one tool activity attempt.
	ToolTimeout time.Duration
	// ToolHeartbeat is the tool activity's heartbeat timeout.
	ToolHeartbeat time.Duration
	// ToolAttempts bounds retries of a failing tool activity; after the last
	// one the model sees an error result.
	ToolAttempts int32
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
	// MaxSeedBytes bounds the model context a Continue-As-New seed carries;
	// a larger one is compacted first. 0 means DefaultMaxSeedBytes.
	MaxSeedBytes int
	// Snapshots, when set, receives every run's session log in this worker
	// process, for the activities it runs (see Snapshots). It never changes
	// what the workflow records or how it replays.
	Snapshots Snapshots
	// Feeds, when set, says where this worker streams agents' model calls,
	// for the feed query (see Feeds).
	Feeds Feeds
}

// Defaults for Config fields left zero.
const (
	DefaultModelTimeout   = 10 * time.Minute
	DefaultModelHeartbeat = 30 * time.Second
	DefaultModelAttempts  = 1
	DefaultToolTimeout    = 10 * time.Minute
	DefaultToolHeartbeat  = 30 * time.Second
	DefaultToolAttempts   = 3
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
	if c.ModelAttempts <= 0 {
		c.ModelAttempts = DefaultModelAttempts
	}
	if c.ToolAttempts <= 0 {
		c.ToolAttempts = DefaultToolAttempts
	}
	if c.MaxSeedBytes <= 0 {
		c.MaxSeedBytes = DefaultMaxSeedBytes
	}
	return c
}

// modelOptions: the activity marks non-repeatable failures (auth, invalid
// request, context overflow, content filter) as non-retryable itself, so the
// retry policy needs no list of error types in every scheduled event.
func (c Config) modelOptions(id, summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		ActivityID:          id,
		Summary:             summary,
		StartToCloseTimeout: c.ModelTimeout,
		HeartbeatTimeout:    c.ModelHeartbeat,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    time.Minute,
			MaximumAttempts:    c.ModelAttempts, // retry turns (the retry hook) own model retries
		},
	}
}

// summaryOptions: a summary of a fixed log prefix is idempotent, so unlike
// a model turn it is retried by Temporal, which carries it across a worker
// crash (heartbeat timeout, then another worker).
func (c Config) summaryOptions(id, summary string) workflow.ActivityOptions {
	o := c.modelOptions(id, summary)
	o.RetryPolicy.MaximumAttempts = c.ToolAttempts
	return o
}

// localToolOptions: a fast tool runs inside the workflow task; a slow one
// does not belong here (mark it not Local).
func (c Config) localToolOptions(summary string) workflow.LocalActivityOptions {
	return workflow.LocalActivityOptions{
		Summary:                summary,
		ScheduleToCloseTimeout: DefaultLocalToolTimeout,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: c.ToolAttempts,
		},
	}
}

func (c Config) toolOptions(id, summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		ActivityID:          id,
		Summary:             summary,
		StartToCloseTimeout: c.ToolTimeout,
		HeartbeatTimeout:    c.ToolHeartbeat,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    30 * time.Second,
			MaximumAttempts:    c.ToolAttempts,
		},
	}
}
