package hook

import (
	"fmt"

	"go.temporal.io/sdk/workflow"
)

// TurnBudgetName is the name the turn-budget policy hook is registered under.
const TurnBudgetName = "turn-budget"

// TurnBudget is the turn budget the seed leaves to policy. At turn-stopping,
// when the turn has taken signals.Budget.MaxSteps steps, it cancels the turn
// with the reason, discarding the steering that would continue it (a
// runaway continuation loop); at pre-step it rejects every turn past
// MaxTurns (the turn closes as blocked, with the reason). Enable it after
// the hooks that steer, so it sees their steering.
func TurnBudget() Hook {
	return Hook{Name: TurnBudgetName, PreStep: rejectPastBudget, TurnStopping: func(_ workflow.Context, a Agent) error {
		b := a.Options().Budget
		if b == nil {
			return nil
		}
		if s := a.State(); b.MaxSteps > 0 && s.Step >= b.MaxSteps && s.Inbox.Steering() {
			a.Cancel(fmt.Sprintf("turn budget exhausted: %d of %d steps in turn %d", s.Step, b.MaxSteps, s.Turn), false)
		}
		return nil
	}}
}

func rejectPastBudget(_ workflow.Context, a Agent, _ []Message, next func() (Decision, error)) (Decision, error) {
	b, s := a.Options().Budget, a.Step()
	if b != nil && b.MaxTurns > 0 && s.Step == 1 && s.Turn > b.MaxTurns {
		return Reject(fmt.Sprintf("turn budget exhausted: %d turns allowed", b.MaxTurns)), nil
	}
	return next()
}
