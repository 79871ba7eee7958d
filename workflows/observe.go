package workflows

import (
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/loop"
)

// Observer watches agent runs from the outside: traces, metrics, logs
// (package telemetry has the worker's). It must never change what a run
// does: it issues no commands, blocks on nothing, reads no workflow state
// but what it is shown, and emits only while workflow.IsReplaying is false.
type Observer interface {
	// Run starts watching one run; ctx is the run's root context.
	Run(ctx workflow.Context) RunObserver
}

// RunObserver watches one run. Recorded sees every session event the run
// records, in order, as soon as the loop recorded it and before the run
// executes the commands of that step: during replay too, so it can rebuild
// what it tracks (an open turn's start) after the worker lost its cache.
type RunObserver interface {
	Recorded(ctx workflow.Context, events []eventlog.Envelope)
}

// stepLoop steps the loop with in and shows the observer what it recorded.
func (r *run) stepLoop(ctx workflow.Context, in loop.Input) loop.Ready {
	rd := r.loop.Step(workflow.Now(ctx), in)
	if r.obs != nil && len(rd.Recorded) > 0 {
		r.obs.Recorded(ctx, rd.Recorded)
	}
	return rd
}

// observe starts the configured observer on the run, if any.
func (r *run) observe(ctx workflow.Context) {
	if r.cfg.Observer != nil {
		r.obs = r.cfg.Observer.Run(ctx)
	}
}

// logger is the replay-aware workflow logger with the agent, the run and
// where the loop is (turn and step), as every workflow log line carries.
func (r *run) logger(ctx workflow.Context) log.Logger {
	info := workflow.GetInfo(ctx)
	s := r.loop.State()
	return log.With(workflow.GetLogger(ctx), "agent", info.WorkflowExecution.ID,
		"run", info.WorkflowExecution.RunID, "turn", s.Turn, "step", s.Step)
}
