package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// shouldContinueAsNew: Temporal suggests it (history events, size, updates),
// one of the configured per-run limits is reached, an upgrade task was done
// (loop.UpgradeDue), or a versioned run has taken UpgradeAfterTurns turns
// since the server told it a newer version is its target. It is asked at
// an idle boundary, and between two steps of a turn, where only the
// history's size counts: a turn too long for one run goes on in the next.
// Every input it reads is recorded (the run config, the workflow task's
// started event), so a replay decides the same.
func (r *run) shouldContinueAsNew(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	c := r.cfg
	turns := r.loop.State().Turn - r.firstTurn
	switch {
	case info.GetContinueAsNewSuggested(), r.loop.UpgradeDue():
		return true
	case r.versioned && c.UpgradeAfterTurns > 0 && turns >= c.UpgradeAfterTurns && !r.loop.BetweenSteps() &&
		info.GetTargetWorkerDeploymentVersionChanged():
		return true // pinned to a version that is no longer the deployment's target: move at this turn's end
	case c.MaxRunEvents > 0 && info.GetCurrentHistoryLength() >= c.MaxRunEvents:
		return true
	case c.MaxRunBytes > 0 && info.GetCurrentHistorySize() >= c.MaxRunBytes:
		return true
	case c.MaxRunTurns > 0 && turns >= c.MaxRunTurns && !r.loop.BetweenSteps():
		return true // a turn limit waits for the turn to end; history limits do not
	}
	return false
}

// prepareContinue readies the switch: handlers finish first and signals
// delivered but not yet received are applied, so nothing accepted is lost;
// then the loop is asked (Continue). It answers ContinueAsNew, perhaps
// after compacting, or goes on when what arrived keeps the run going.
func (r *run) prepareContinue(ctx workflow.Context) (loop.Input, error) {
	r.continuing = true
	r.declined = r.loop.State().Len
	if err := r.settle(ctx); err != nil {
		return nil, err
	}
	return loop.Continue{}, nil
}

// settle waits for every handler and drains delivered signals. Handlers
// that wait for the loop's answer (decisions, spawns) are answered
// meanwhile: what they and the drained signals queued is stepped here.
func (r *run) settle(ctx workflow.Context) error {
	for {
		err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) || len(r.inputs) > 0 })
		if err != nil {
			return err
		}
		r.drainSignals()
		if len(r.inputs) == 0 && workflow.AllHandlersFinished(ctx) {
			return nil
		}
		for q := r.pop(); q != nil; q = r.pop() {
			if end := r.step(ctx, q); end != nil {
				return end.err
			}
		}
	}
}

// continueAsNew ends the run; the next one starts from a seed taken after a
// last settle, so messages accepted while a compaction ran ride along.
// Signals arriving after this workflow task are delivered to the next run
// by Temporal.
func (r *run) continueAsNew(ctx workflow.Context, c loop.ContinueAsNew) error {
	if c.CompactionErr != nil {
		r.logger(ctx).Warn("Compaction before continue-as-new failed", "error", c.CompactionErr)
	}
	r.seed = &seedJournal{j: c.Journal} // what settling applies, carry adds
	if err := r.settle(ctx); err != nil {
		return err
	}
	seed, err := r.loop.Seed()
	if err != nil {
		return err
	}
	if r.seed.err != nil {
		return r.seed.err
	}
	seed.Journal, seed.PrevRun = r.seed.j, workflow.GetInfo(ctx).WorkflowExecution.RunID
	r.logger(ctx).Info("Continuing as new", "log_len", seed.State.Len, "runs", seed.Runs)
	next := signals.AgentInput{Options: r.opts, Seed: &seed, Parent: r.in.Parent}
	if r.versioned {
		// The next run starts on the deployment's current version, not the
		// one this run is pinned to: how a long-lived agent upgrades. The
		// command's attribute is not replayed, so this decides nothing a
		// replay checks.
		return workflow.NewContinueAsNewErrorWithOptions(ctx, workflow.ContinueAsNewErrorOptions{
			InitialVersioningBehavior: workflow.ContinueAsNewVersioningBehaviorAutoUpgrade}, signals.AgentWorkflow, next)
	}
	return workflow.NewContinueAsNewError(ctx, signals.AgentWorkflow, next)
}
