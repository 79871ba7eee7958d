package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Config holds worker-level knobs of the agent workflow. Changing them affects
// only commands scheduled afterwards, never replay.
type Config struct {
	// ModelTimeout bounds one model activity attempt (StartToClose).
	ModelTimeout time.Duration
	// ModelHeartbeat is the model activity's heartbeat timeout: a worker that
	// dies mid-call is noticed within it.
	ModelHeartbeat time.Duration
	// ModelAttempts bounds Temporal's retries of retryable model failures.
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
}

// Defaults for Config fields left zero.
const (
	DefaultModelTimeout   = 10 * time.Minute
	DefaultModelHeartbeat = 30 * time.Second
	DefaultModelAttempts  = 4
	DefaultToolTimeout    = 10 * time.Minute
	DefaultToolHeartbeat  = 30 * time.Second
	DefaultToolAttempts   = 3
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
			MaximumAttempts:    c.ModelAttempts,
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
