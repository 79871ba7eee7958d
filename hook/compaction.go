package hook

import (
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
)

// CompactionName is the name the compaction hook is registered under.
const CompactionName = "compaction"

// DefaultThreshold is the window fraction the pressure check triggers at.
const DefaultThreshold = 0.8

// Compaction is seed 002's dsh-compaction-basic. Before every step (pre-step)
// it checks pressure: when the estimated context passes the agent's
// Compaction.Threshold of its Window, it compacts. After a context_overflow
// failure (request-error) it compacts and retries, but only when the
// context actually shrank; otherwise the original error stands.
func Compaction() Hook {
	return Hook{Name: CompactionName, PreStep: relievePressure, RequestError: recoverOverflow}
}

func relievePressure(ctx workflow.Context, a Agent, _ []Message, next func() (Decision, error)) (Decision, error) {
	p := a.Options().Compaction
	if p != nil && p.Window > 0 {
		threshold := p.Threshold
		if threshold <= 0 || threshold > 1 {
			threshold = DefaultThreshold
		}
		if float64(a.ContextTokens()) > float64(p.Window)*threshold {
			if _, err := a.Compact(ctx, false); err != nil {
				return Decision{}, err
			}
		}
	}
	return next()
}

func recoverOverflow(ctx workflow.Context, a Agent, f eventlog.Failure, next func() (Action, error)) (Action, error) {
	if f.Kind != eventlog.FailureContextOverflow {
		return next()
	}
	reduced, err := a.Compact(ctx, true)
	if err != nil || !reduced {
		return next()
	}
	return Action{Retry: true}, nil
}
