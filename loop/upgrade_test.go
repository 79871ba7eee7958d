package loop

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// The upgrade task waits for a true idle phase like any maintenance task;
// then it is recorded done and answered, and the loop stands at a boundary
// where the shell continues it as new (UpgradeDue); Continue then emits
// ContinueAsNew and the seed carries the agent whole: a message that came
// meanwhile waits in it, for the next run.
func TestAnUpgradeTaskEndsTheRunAtItsNextTrueIdlePhase(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	require.NoError(t, d.l.CheckMaintain(signals.TaskUpgrade))
	d.step(Maintain{Task: signals.TaskUpgrade})
	d.resume()
	require.True(t, d.l.State().InTurn, "the open turn comes first")
	require.False(t, d.l.UpgradeDue())
	require.False(t, d.l.AtBoundary(), "queued maintenance is no boundary")
	d.followup("f2")
	d.answerModel(answer("ok"))
	require.True(t, d.l.State().InTurn, "work that was due before it opens its turn first")
	d.answerModel(answer("ok again"))

	require.False(t, d.l.State().InTurn, "idle: the task ran, and no turn opened after it")
	require.True(t, d.l.UpgradeDue())
	require.True(t, d.l.AtBoundary())
	answers := seen[AnswerMaintenance](d)
	require.Len(t, answers, 1)
	require.NoError(t, answers[0].Err)
	require.Equal(t, signals.TaskUpgrade, answers[0].Result.Task)
	done := only[eventlog.MaintenanceDone](d.events())
	require.Len(t, done, 1)
	require.Equal(t, string(signals.TaskUpgrade), done[0].Task)
	require.Empty(t, done[0].Error)
	require.Empty(t, d.l.State().Maintenance)

	d.followup("f3") // arrives before the shell asks: the seed carries it
	d.step(Continue{})
	require.Len(t, seen[ContinueAsNew](d), 1)
	seed, err := d.l.Seed()
	require.NoError(t, err)
	require.Len(t, seed.State.Inbox.NextTurn, 1)
	next := Restore(Config{AgentID: "a1"}, seed)
	require.False(t, next.UpgradeDue(), "the next run is the upgrade: it does not continue again")
	require.Equal(t, 2, next.State().Turn)
}

// Two tasks queued together run in order: an upgrade after a compaction
// waits for it, and the run continues as new only once both are answered.
func TestAnUpgradeQueuedBehindACompactionRunsAfterIt(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Compaction: &signals.Compaction{KeepRecent: 1}})
	for _, id := range []string{"f1", "f2"} {
		d.followup(id)
		d.resume()
		d.answerModel(answer("an answer"))
	}
	d.step(Maintain{Task: signals.TaskCompact})
	d.step(Maintain{Task: signals.TaskUpgrade})
	d.resume()
	take[Summarize](d)
	require.False(t, d.l.UpgradeDue())
	d.step(Summarized{Text: "summary"})
	answers := seen[AnswerMaintenance](d)
	require.Len(t, answers, 2)
	require.Equal(t, signals.TaskCompact, answers[0].Result.Task)
	require.Equal(t, signals.TaskUpgrade, answers[1].Result.Task)
	require.True(t, d.l.UpgradeDue())
	require.True(t, d.l.AtBoundary())
}

// What the loop refuses, before anything is recorded: the task in a run
// under rules from before it (it moves at its next Continue-As-New
// anyway), a task with no name or an unknown one, and any task once the
// agent is disposing. A queued upgrade that a dispose overtakes is
// answered disposed and never continues the run.
func TestAnUpgradeIsRefusedByOlderRulesAndEndedByADispose(t *testing.T) {
	old := newDriver(t, signals.AgentOptions{}, func(c *Config) { c.Rules = RulesUpgradeTask - 1 })
	err := old.l.CheckMaintain(signals.TaskUpgrade)
	require.ErrorIs(t, err, ErrUnknownTask)
	require.Contains(t, err.Error(), fmt.Sprintf("this run follows loop rules %d, which have no upgrade task (rules %d have it)", RulesUpgradeTask-1, RulesUpgradeTask))
	rd := old.step(Maintain{Task: signals.TaskUpgrade})
	require.ErrorIs(t, rd.Err, ErrUnknownTask)
	require.Empty(t, old.l.State().Maintenance)
	require.Empty(t, old.events(), "a refused task records nothing")
	require.NoError(t, old.l.CheckMaintain(signals.TaskCompact), "older rules keep compaction")

	d := newDriver(t, signals.AgentOptions{})
	for _, task := range []signals.MaintenanceTask{"", "defrag", "UPGRADE", "upgrade "} {
		err := d.l.CheckMaintain(task)
		require.ErrorIs(t, err, ErrUnknownTask, "%q", task)
		require.Contains(t, err.Error(), `the tasks are "compact" and "upgrade"`)
	}
	d.followup("f1")
	d.resume()
	d.step(Maintain{Task: signals.TaskUpgrade})
	d.step(Dispose{Cause: "bye"})
	d.cancelInflight()
	answers := seen[AnswerMaintenance](d)
	require.Len(t, answers, 1)
	require.ErrorIs(t, answers[0].Err, signals.ErrDisposed)
	require.False(t, d.l.UpgradeDue())
	require.Len(t, seen[Finish](d), 1)
	require.Empty(t, seen[ContinueAsNew](d))
	require.ErrorIs(t, d.l.CheckMaintain(signals.TaskUpgrade), signals.ErrDisposed)
}
