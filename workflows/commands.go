package workflows

import "github.com/tetherdev/tether/signals"

// Command is what the core asks the shell to do next. The set is closed.
//
//sumtype:decl
type Command interface{ isCommand() }

// AwaitWork blocks until a turn is due, the agent is disposed or events wait
// to be journaled. Journal, if any, is recorded in history first.
type AwaitWork struct {
	Journal signals.Journal
}

// CallModel runs one model request.
type CallModel struct {
	ActivityID string
	Summary    string
	Input      signals.ModelInput
}

// RunTools runs the step's tool calls and reports each result in model order.
type RunTools struct {
	Calls []ToolInvocation
}

// ToolInvocation is one tool activity, or, when Immediate is set, a result
// the loop decided without running anything (a tool the agent may not use).
type ToolInvocation struct {
	Immediate  *signals.ToolOutput
	ActivityID string
	Summary    string
	Input      signals.ToolInput
}

// Finish completes the workflow.
type Finish struct {
	Result signals.AgentResult
}

// Fail fails the workflow: the log met an invalid transition.
type Fail struct {
	Err error
}

func (AwaitWork) isCommand() {}
func (CallModel) isCommand() {}
func (RunTools) isCommand()  {}
func (Finish) isCommand()    {}
func (Fail) isCommand()      {}
