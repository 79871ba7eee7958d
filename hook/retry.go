package hook

import (
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// RetryName is the name the default retry policy hook is registered under.
const RetryName = "retry"

// Defaults of the retry policy (seed 002's dsh-llm-retry).
const (
	DefaultMaxRetries = 5
	DefaultInitial    = time.Second
	DefaultMax        = time.Minute
	DefaultMultiplier = 2.0
)

// Retry is the default retry policy: a failed model call whose kind is
// retried (rate limit, overloaded, server, network, timeout by default)
// opens a retry turn after an exponential backoff, which the loop waits on
// a durable timer, honouring the provider's retry-after when it is longer;
// after
// MaxRetries retry turns, or for any other kind (auth, invalid request,
// context overflow, content filter, canceled), the failure is terminal. The
// agent's signals.AgentOptions.Retry configures it.
func Retry() Hook {
	return Hook{Name: RetryName, RequestError: retryOnFailure}
}

func retryOnFailure(_ workflow.Context, a Agent, f eventlog.Failure, next func() (Action, error)) (Action, error) {
	p := policy(a.Options().Retry)
	if !slices.Contains(p.Kinds, f.Kind) || a.RetryChain() >= p.MaxRetries {
		return next()
	}
	return Action{Retry: true, After: Backoff(p, a.RetryChain(), f.RetryAfter)}, nil
}

// policy fills a policy's zero fields with the defaults.
func policy(in *signals.RetryPolicy) signals.RetryPolicy {
	var p signals.RetryPolicy
	if in != nil {
		p = *in
	}
	if p.MaxRetries <= 0 {
		p.MaxRetries = DefaultMaxRetries
	}
	if p.Initial <= 0 {
		p.Initial = DefaultInitial
	}
	if p.Max <= 0 {
		p.Max = DefaultMax
	}
	if p.Multiplier < 1 {
		p.Multiplier = DefaultMultiplier
	}
	if len(p.Kinds) == 0 {
		for _, k := range eventlog.FailureKinds {
			if k.Retryable() && k != eventlog.FailureUnknown {
				p.Kinds = append(p.Kinds, k)
			}
		}
	}
	return p
}

// Backoff is the wait before retry number n+1 (n retries so far): Initial
// × Multiplier^n, capped at Max, or retryAfter when that is longer.
func Backoff(p signals.RetryPolicy, n int, retryAfter time.Duration) time.Duration {
	p = policy(&p)
	d := float64(p.Initial)
	for range n {
		d *= p.Multiplier
		if d >= float64(p.Max) {
			d = float64(p.Max)
			break
		}
	}
	return max(time.Duration(d), retryAfter)
}

// Defaults are the hooks every worker registers and enables for agents whose
// options name none. They run in workflow code: changing this set changes
// what replays, so it is versioned like workflow code.
func Defaults() (hooks []Hook, enabled []string) {
	return []Hook{Compaction(), Retry(), TurnBudget()}, []string{CompactionName, RetryName, TurnBudgetName}
}
