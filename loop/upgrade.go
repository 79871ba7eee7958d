package loop

import (
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// The upgrade task (signals.TaskUpgrade, RulesUpgradeTask) moves an agent
// to other code without waiting for its history to grow: in a true idle
// phase, like every maintenance task, it records maintenance/done, answers
// its request and leaves the run to continue as new at the boundary it
// stands at (UpgradeDue). With Worker Deployment Versioning the next run
// starts on the deployment's current version (package workflows); without,
// on whichever worker takes it. Nothing else changes: the seed carries the
// agent whole, as at any Continue-As-New.

// checkUpgrade refuses the task in a run whose rules predate it: such a run
// neither records nor continues for it, and moves at its next
// Continue-As-New anyway.
func (l *Loop) checkUpgrade() error {
	if l.cfg.Rules < RulesUpgradeTask {
		return fmt.Errorf("%w: %q: this run follows loop rules %d, which have no upgrade task (rules %d have it); "+
			"the agent moves at its next Continue-As-New", ErrUnknownTask, signals.TaskUpgrade, l.cfg.Rules, RulesUpgradeTask)
	}
	return nil
}

// upgraded ends the oldest queued task, an upgrade, and marks the run due
// to continue as new.
func (l *Loop) upgraded(now time.Time) {
	tokens := l.ContextTokens()
	l.record(now, "", eventlog.MaintenanceDone{Task: string(signals.TaskUpgrade), Before: tokens, After: tokens})
	l.upgrade = true
	l.carry() // idle: what waits becomes durable now
	l.emit(AnswerMaintenance{Result: signals.Maintained{Task: signals.TaskUpgrade, Before: tokens, After: tokens}})
}

// UpgradeDue reports whether an upgrade task was done in this run: the
// shell continues it as new at its next boundary (AtBoundary), as it does
// when Temporal suggests it.
func (l *Loop) UpgradeDue() bool { return l.upgrade }
