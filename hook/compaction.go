package hook

import (
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
)

// CompactionName is the name the compaction hook is registered under.
const CompactionName = "compaction"

// Compaction is seed 002's dsh-compaction-basic. Before every step (pre-step)
// it checks pressure: when the estimated context passes the agent's
// Compaction.Threshold of its Window, it compacts. After a context_overflow
// failure (request-error) it compacts and retries, but only when the
// context actually shrank; otherwise the original error stands.
func Compaction() Hook {
	return Hook{Name: CompactionName, PreStep: relievePressure, RequestError: recoverOverflow}
}

func relievePressure(ctx workflow.Context, a Agent, _ []Message, next func() (Decision, error)) (Decision, error) {
	if p := a.Options().Compaction.Policy(); p.Window > 0 {
		if float64(a.ContextTokens()) > float64(p.Window)*p.Threshold {
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
