package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// shouldContinueAsNew: Temporal suggests it (history events, size, updates)
// or one of the configured per-run limits is reached. It is asked only at a
// turn boundary.
func (r *run) shouldContinueAsNew(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	c := r.cfg
	if inboxBytes(r.core.State().Inbox) > c.MaxSeedBytes {
		// A flood of large pending messages would not fit in a seed; the
		// turns it opens drain it, and the run continues as new after.
		return false
	}
	switch {
	case info.GetContinueAsNewSuggested():
		return true
	case c.MaxRunEvents > 0 && info.GetCurrentHistoryLength() >= c.MaxRunEvents:
		return true
	case c.MaxRunBytes > 0 && info.GetCurrentHistorySize() >= c.MaxRunBytes:
		return true
	case c.MaxRunTurns > 0 && r.core.State().Turn-r.firstTurn >= c.MaxRunTurns:
		return true
	}
	return false
}

// continueAsNew ends the run at a turn boundary and starts the next one with
// a seed carrying everything. Handlers finish first, and signals delivered
// but not yet received are accepted into the inbox, so nothing accepted
// during the switch is lost; signals arriving after this workflow task are
// delivered to the next run by Temporal.
//
// It returns nil when what the handlers and signals brought (a dispose, new
// work under a limit that no longer holds) keeps the run going instead.
func (r *run) continueAsNew(ctx workflow.Context) error {
	r.continuing = true
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	for _, drain := range r.drains {
		drain()
	}
	if !r.core.AtBoundary() { // disposed meanwhile: finish this run instead
		r.continuing = false
		return nil
	}
	if r.core.ContextTokens()*4 > r.cfg.MaxSeedBytes {
		// The seed must stay far below Temporal's payload limit.
		if _, err := r.compact(ctx, true); err != nil {
			workflow.GetLogger(ctx).Warn("Compaction before continue-as-new failed", "error", err)
		}
	}
	seed, err := r.core.Seed(workflow.GetInfo(ctx).WorkflowExecution.RunID)
	if err != nil {
		return err
	}
	workflow.GetLogger(ctx).Info("Continuing as new", "log_len", seed.State.Len, "turn", seed.State.Turn, "runs", seed.Runs)
	return workflow.NewContinueAsNewError(ctx, signals.AgentWorkflow, signals.AgentInput{Options: r.opts, Seed: &seed})
}

// inboxBytes is the content size of the pending messages a seed would carry.
func inboxBytes(in eventlog.Inbox) int {
	n := 0
	for _, l := range [][]eventlog.Pending{in.NextTurn, in.NextStep} {
		for _, p := range l {
			n += len(p.Content)
		}
	}
	return n
}
