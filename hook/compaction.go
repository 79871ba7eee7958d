package hook

import (
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
)

// CompactionName is the name the compaction hook is registered under.
const CompactionName = "compaction"

// Compaction is seed 002's dsh-compaction-basic as a policy: it says when
// to compact, and the loop plans and runs the compaction (prune old tool
// results first, then summarise). Before every step (pre-step) it checks
// pressure: when the estimated context passes the agent's
// Compaction.Threshold of its Window, the step's decision asks for
// compaction. After a context_overflow failure (request-error) it asks for
// a compaction and a retry, which the loop makes only when the context
// actually shrank; otherwise the original error stands.
func Compaction() Hook {
	return Hook{Name: CompactionName, PreStep: relievePressure, RequestError: recoverOverflow}
}

func relievePressure(_ workflow.Context, a Agent, _ []Message, next func() (Decision, error)) (Decision, error) {
	d, err := next()
	if p := a.Options().Compaction.Policy(); err == nil && !d.Reject && p.Window > 0 {
		d.Compact = d.Compact || float64(a.ContextTokens()) > float64(p.Window)*p.Threshold
	}
	return d, err
}

func recoverOverflow(_ workflow.Context, _ Agent, f eventlog.Failure, next func() (Action, error)) (Action, error) {
	if f.Kind != eventlog.FailureContextOverflow {
		return next()
	}
	return Action{Retry: true, Compact: true}, nil
}
