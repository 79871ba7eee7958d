package hook

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/signals"
)

// TurnBudgetName is the name the turn-budget policy hook is registered under.
const TurnBudgetName = "turn-budget"

// TurnBudget is the turn budget the seeds leave to policy; it is enabled by
// default, so the loop has a safety bound without building one in. At
// pre-step it rejects a step past the turn's step limit (the turn closes as
// blocked, with the reason): signals.Budget.MaxSteps, else
// AgentOptions.MaxSteps, else signals.DefaultMaxSteps. It rejects every
// turn past Budget.MaxTurns the same way. At turn-stopping, when a turn has
// taken Budget.MaxSteps steps and steering would continue it (a runaway
// continuation loop), it cancels the turn, discarding that steering. Enable
// it after the hooks that steer, so it sees their steering; remove it from
// an agent's hooks to run without a step limit.
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
	o, s := a.Options(), a.Step()
	if b := o.Budget; b != nil && b.MaxTurns > 0 && s.Step == 1 && s.Turn > b.MaxTurns {
		return Reject(fmt.Sprintf("turn budget exhausted: %d turns allowed", b.MaxTurns)), nil
	}
	if limit := StepLimit(o); s.Step > limit {
		return Reject(fmt.Sprintf("step limit %d reached in turn %d", limit, s.Turn)), nil
	}
	return next()
}

// StepLimit is the most steps the turn-budget hook lets one turn take.
func StepLimit(o signals.AgentOptions) int {
	switch {
	case o.Budget != nil && o.Budget.MaxSteps > 0:
		return o.Budget.MaxSteps
	case o.MaxSteps > 0:
		return o.MaxSteps
	}
	return signals.DefaultMaxSteps
}
