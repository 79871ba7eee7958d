package workflows

import (
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

// Command is what the core asks the shell to do next. The set is closed.
//
//sumtype:decl
type Command interface{ isCommand() }

// AwaitWork blocks until a turn is due, the agent is disposed or events wait
// to be journaled. Journal, if any, is recorded in history first.
type AwaitWork struct {
	Journal signals.Journal
}

// Point names a serial hook point.
type Point string

// Serial hook points.
const (
	PointStepBoundary   Point = "step-boundary"
	PointRuntimeContext Point = "runtime-context"
	PointTurnStopping   Point = "turn-stopping"
)

// RunHooks runs the serial hooks of Point; the shell reports HooksDone.
type RunHooks struct {
	Point Point
}

// ChooseModel runs the model waterfall over Default; the shell reports
// ModelChosen.
type ChooseModel struct {
	Default signals.Selection
}

// DecidePreStep runs the pre-step waterfall for the claimed batch; the shell
// reports PreStepDone.
type DecidePreStep struct {
	Batch []hook.Message
}

// ShapeRequest runs the request waterfall over Default; the shell reports
// RequestShaped.
type ShapeRequest struct {
	Default signals.CallConfig
}

// CallModel runs one model request; the shell reports ModelDone.
type CallModel struct {
	ActivityID string
	Summary    string
	Input      signals.ModelInput
}

// Recover runs the request-error waterfall for a failed model call; the
// shell reports Recovered.
type Recover struct {
	Failure eventlog.Failure
}

// RunTools runs the step's tool calls: parallel ones concurrently up to
// Bound, sequential ones one at a time in model order, exclusive ones as
// barriers. The shell reports each result in model order with ToolDone.
type RunTools struct {
	Calls []ToolInvocation
	Bound int
}

// ToolInvocation is one tool activity, or, when Immediate is set, a result
// the loop decided without running anything (a tool the agent may not use).
type ToolInvocation struct {
	Immediate *signals.ToolOutput
	// Local runs the call as a local activity (a fast tool).
	Local      bool
	Call       hook.Call
	ActivityID string
	Summary    string
	Input      signals.ToolInput
}

// RunMaintenance runs one maintenance task in a true idle phase: no turn is
// open and none is due; a message arriving meanwhile waits for it.
type RunMaintenance struct {
	Task signals.MaintenanceTask
}

// Finish completes the workflow.
type Finish struct {
	Result signals.AgentResult
}

// Fail fails the workflow: the log met an invalid transition.
type Fail struct {
	Err error
}

func (AwaitWork) isCommand()      {}
func (RunHooks) isCommand()       {}
func (ChooseModel) isCommand()    {}
func (DecidePreStep) isCommand()  {}
func (ShapeRequest) isCommand()   {}
func (CallModel) isCommand()      {}
func (Recover) isCommand()        {}
func (RunTools) isCommand()       {}
func (RunMaintenance) isCommand() {}
func (Finish) isCommand()         {}
func (Fail) isCommand()           {}
