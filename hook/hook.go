package hook

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// Hook is one named extension. Any field may be nil.
type Hook struct {
	// Name enables the hook in signals.AgentOptions.Hooks. Durable: agents
	// name hooks in their options.
	Name string

	StepBoundary   func(ctx workflow.Context, a Agent) error
	Model          func(ctx workflow.Context, a Agent, next func() (signals.Selection, error)) (signals.Selection, error)
	PreStep        func(ctx workflow.Context, a Agent, batch []Message, next func() (Decision, error)) (Decision, error)
	RuntimeContext func(ctx workflow.Context, a Agent) (string, error)
	Request        func(ctx workflow.Context, a Agent, next func() (signals.CallConfig, error)) (signals.CallConfig, error)
	RequestError   func(ctx workflow.Context, a Agent, f eventlog.Failure, next func() (Action, error)) (Action, error)
	TurnStopping   func(ctx workflow.Context, a Agent) error
	ToolPre        func(ctx workflow.Context, a Agent, call Call) error
	ToolPost       func(ctx workflow.Context, a Agent, call Call, result signals.ToolOutput) (signals.ToolOutput, error)
	// SessionStart runs once per agent, when it is published, before its
	// first turn: a notification that cannot veto (see the package doc).
	// It seeds the agent, e.g. a.Inject(context) for the first step.
	SessionStart func(ctx workflow.Context, a Agent, s Start) error
}

// Start is what session-start hooks learn of the agent's start beside
// what Agent shows.
type Start struct {
	// Parent is the agent that spawned this one; nil for a root agent.
	Parent *signals.ParentLink
	// First is the message the agent was started with, pending in its
	// next-turn list for the first turn; nil when it was started empty.
	First *signals.Message
}

// Agent is what a hook sees of its agent. Methods are safe only inside the
// hook call that received it.
type Agent interface {
	ID() string
	Options() signals.AgentOptions
	// Config returns the agent's configuration for the named hook
	// (signals.AgentOptions.HookConfig), or nil.
	Config(hook string) json.RawMessage
	// State is the folded session log.
	State() eventlog.State
	// Step is the step being proposed or run: turn, step, the model
	// selection and the step's tool set.
	Step() Step
	// RetryChain counts the retry turns opened since the chain's first turn.
	RetryChain() int
	// Steer records steering: a next-step message that wakes the loop.
	Steer(content string) error
	// Inject records a next-step message that does not wake the loop.
	Inject(content string) error
	// SelectModel switches the model from the next proposed step on; a
	// step already proposed keeps its selection.
	SelectModel(s signals.Selection)
	// Cancel aborts the open turn with cause, as the cancel signal does;
	// pending messages are discarded unless keepInbox.
	Cancel(cause string, keepInbox bool)
	// ContextTokens estimates the model context's size.
	ContextTokens() int
	// Spawn starts a detached child agent: each turn it settles arrives in
	// this agent's inbox as a message from it. It returns the child's ID.
	Spawn(args signals.SpawnArgs) (string, error)
}

// The data hooks exchange with the loop (package loop decides on them).
type (
	// Step describes the proposed step.
	Step = loop.Step
	// Tool is one tool of a step's tool set.
	Tool = loop.Tool
	// Message is a claimed message offered to pre-step.
	Message = loop.Message
	// Decision is pre-step's answer for one claimed batch; Compact asks
	// the loop to compact the context before the step opens.
	Decision = loop.Decision
	// Action is request-error's answer: Retry, After a backoff, after
	// compaction when Compact.
	Action = loop.Action
	// Call is one tool call as tool hooks see it.
	Call = loop.Call
)

// Enter admits messages.
func Enter(messages []Message) Decision { return loop.Enter(messages) }

// Reject closes the turn as blocked without spending a step.
func Reject(reason string) Decision { return loop.Reject(reason) }

// Denied is the error a ToolPre hook returns to refuse a call: the model sees
// an error result with the reason; the turn goes on. Any other error fails
// the turn.
type Denied struct{ Reason string }

func (d *Denied) Error() string { return "denied: " + d.Reason }

// Deny refuses a tool call from ToolPre.
func Deny(reason string) error { return &Denied{Reason: reason} }
