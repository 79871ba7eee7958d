package loop

import (
	"encoding/json"
	"time"

	"github.com/tetherdev/tether/signals"
)

// The data hooks exchange with the loop. Package hook gives them to hook
// authors under the same names; they live here so the loop can decide on
// them without Temporal.

// Step describes the step being proposed or run.
type Step struct {
	Turn, Step int
	// Selection is the step's model, chosen by the model waterfall from
	// the agent's selection; it does not change while the step runs.
	Selection signals.Selection
	// Tools is the step's tool set, resolved once when it is proposed.
	Tools []Tool
}

// Tool is one tool of a step's tool set.
type Tool struct {
	Name string
	Mode signals.ToolMode
	// MCP is the server tool behind an MCP tool; nil for others.
	MCP *signals.MCPGrant
}

// Message is a claimed message offered to pre-step: the message as a
// client sent it (signals.Message), one type for the same two fields.
type Message = signals.Message

// Decision is pre-step's answer for one claimed batch.
type Decision struct {
	Reject bool
	// Reason is recorded when the batch is rejected.
	Reason string
	// Messages enter the step (when not rejected), in order. A message with
	// an ID from the batch is that message; one without an ID is an addition
	// a hook makes (recorded as a user message of its own).
	Messages []Message
	// Compact asks the loop to compact the context before the step opens
	// (seed 002's pressure check).
	Compact bool
}

// Enter admits messages.
func Enter(messages []Message) Decision { return Decision{Messages: messages} }

// Reject closes the turn as blocked without spending a step.
func Reject(reason string) Decision { return Decision{Reject: true, Reason: reason} }

// Action is request-error's answer.
type Action struct {
	// Retry closes the failed turn and opens a retry turn over the same state.
	Retry bool
	// After delays the retry turn on a durable timer (backoff).
	After time.Duration
	// Compact compacts the context first; the retry then happens only if
	// the context shrank, otherwise the failure stands (seed 002's
	// context-overflow recovery).
	Compact bool
}

// Call is one tool call as tool hooks see it.
type Call struct {
	ID, Name  string
	Arguments json.RawMessage
	Mode      signals.ToolMode
	// Index is the call's position in the model's order, from 0.
	Index int
	// MCP is the server tool the call runs, for an MCP tool.
	MCP *signals.MCPGrant
}

// Point names a serial hook point.
type Point string

// Serial hook points.
const (
	PointStepBoundary   Point = "step-boundary"
	PointRuntimeContext Point = "runtime-context"
	PointTurnStopping   Point = "turn-stopping"
)
