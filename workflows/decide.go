package workflows

import (
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Next applies every transition that needs no I/O and returns the command
// that is due. It never returns nil; when there is nothing to do it returns
// AwaitWork, so the shell always blocks somewhere instead of spinning.
func (c *Core) Next(now time.Time) Command {
	for {
		if c.err != nil {
			return Fail{Err: c.err}
		}
		if cmd := c.due(now); cmd != nil {
			return cmd
		}
	}
}

// due makes the transitions of the current phase and returns the command it
// needs, or nil to look again.
func (c *Core) due(now time.Time) Command {
	switch c.phase {
	case phaseNoTurn:
		return c.idle(now)
	case phaseProposal:
		c.propose(now)
	case phaseBoundary:
		return RunHooks{Point: PointStepBoundary}
	case phaseChoose:
		return ChooseModel{Default: c.selection}
	case phasePreStep:
		return DecidePreStep{Batch: batchMessages(c.batch)}
	case phaseContext:
		return RunHooks{Point: PointRuntimeContext}
	case phaseRequest:
		return ShapeRequest{Default: c.defaultCall()}
	case phaseModel:
		return c.callModel()
	case phaseRecover:
		return Recover{Failure: c.failure}
	case phaseTools:
		return c.runTools(now)
	case phaseStepDone:
		c.endStep(now)
	case phaseStopping:
		return RunHooks{Point: PointTurnStopping}
	}
	return nil
}

// idle opens a turn when work is due, finishes a disposed agent, or waits.
func (c *Core) idle(now time.Time) Command {
	switch {
	case c.disposed:
		return c.finish(now)
	case !c.HasWork() && len(c.maintenance) > 0:
		c.setStatus(now, eventlog.StatusIdle)
		return RunMaintenance{Task: c.maintenance[0]}
	case !c.HasWork():
		c.setStatus(now, eventlog.StatusIdle)
		return AwaitWork{Journal: c.TakeJournal()}
	}
	c.startTurn(now, 0)
	return nil
}

func (c *Core) setStatus(now time.Time, s eventlog.Status) {
	if c.state.Status != s {
		c.record(now, "", eventlog.StatusChanged{Status: s})
	}
}

// finish discards what is still pending and completes the workflow.
func (c *Core) finish(now time.Time) Command {
	c.discardAll(now, eventlog.DiscardDisposed, c.dispose)
	c.setStatus(now, eventlog.StatusIdle)
	if c.err != nil {
		return Fail{Err: c.err}
	}
	return Finish{Result: signals.AgentResult{LogLen: c.state.Len, Journal: c.TakeJournal()}}
}
