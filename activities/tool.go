package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// ToolRunner executes one tool call. Unknown tools and invalid arguments come
// back as error results the model sees; a returned error means the attempt
// failed and may be retried.
type ToolRunner interface {
	Execute(ctx context.Context, call tools.Call) (tools.Result, error)
}

// ToolCallReader returns the arguments of a tool call from the agent's log.
type ToolCallReader interface {
	ToolCall(ctx context.Context, ref signals.LogRef, seq int64, callID string) (eventlog.ToolCallRequest, error)
}

// Tool is the tool activity: it runs one call the model asked for.
type Tool struct {
	Runner         ToolRunner
	Log            ToolCallReader
	HeartbeatEvery time.Duration
	// MCP, when set, runs the calls of MCP servers' tools.
	MCP MCPCaller
}

// Validate checks the activity's dependencies when the worker starts.
func (t *Tool) Validate() error {
	if t.Runner == nil || t.Log == nil {
		return errors.New("tool activity: runner and log reader are required")
	}
	return nil
}

// Run executes the call named by in. Its arguments are read from the log;
// the idempotency key is stable across retries and crashes.
func (t *Tool) Run(ctx context.Context, in signals.ToolInput) (signals.ToolOutput, error) {
	stop := heartbeat(ctx, t.HeartbeatEvery)
	defer stop()
	ref := ownRef(ctx, signals.LogRef{Upto: in.AssistantSeq + 1})
	args := in.Arguments
	if args == nil { // a regular activity: the arguments are in the log
		req, err := t.Log.ToolCall(ctx, ref, in.AssistantSeq, in.CallID)
		if err != nil {
			return signals.ToolOutput{}, fmt.Errorf("tool %s call %s: %w", in.Name, in.CallID, err)
		}
		args = req.Arguments
	}
	res, err := t.execute(ctx, in, tools.Call{
		AgentID: ref.AgentID, CallID: in.CallID, Name: in.Name,
		Arguments: args, IdempotencyKey: in.IdempotencyKey,
	})
	if err != nil {
		return signals.ToolOutput{}, fmt.Errorf("tool %s call %s: %w", in.Name, in.CallID, err)
	}
	return signals.ToolOutput{
		CallID: in.CallID, Name: in.Name, Content: res.Content,
		IsError: res.IsError, ConcludesTurn: res.ConcludesTurn,
	}, nil
}
