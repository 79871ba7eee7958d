package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/activities/llm"
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
//
// Tools run at least once: an attempt lost to a fault (its worker died or
// lost the server) runs again from the start, and so does a local tool
// whose workflow task was lost. The call's idempotency key is the same
// every time, so a tool with side effects dedupes on it. Only the tool's own
// failures (an error, or running past its time limit) count against the
// call's attempts; see signals.ToolFailure.
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

// Run executes the call named by in. Its arguments travel in the input
// or, when they do not, are read from the log;
// the idempotency key is stable across retries and crashes.
func (t *Tool) Run(ctx context.Context, in signals.ToolInput) (signals.ToolOutput, error) {
	rec := priorRecord(ctx)
	prior := rec.Failures
	beat := startBeat(ctx, t.HeartbeatEvery, rec)
	defer beat.stop()
	details := &callDetails{beat: beat, r: rec}
	ref := ownRef(ctx, signals.LogRef{Upto: in.AssistantSeq + 1})
	args := in.Arguments
	if args == nil { // a regular activity: the arguments are in the log
		req, err := t.Log.ToolCall(ctx, ref, in.AssistantSeq, in.CallID)
		if err != nil {
			// The log is readable again once the workflow has a worker: a
			// fault, retried without counting.
			msg := tools.Truncate(fmt.Sprintf("tool %s call %s: %v", in.Name, in.CallID, err), MaxErrorBytes)
			return signals.ToolOutput{}, temporal.NewApplicationError(msg, ErrLogUnavailable)
		}
		args = req.Arguments
	}
	out := signals.ToolOutput{CallID: in.CallID, Name: in.Name}
	if n, limit, dropped := llm.DroppedArguments(args); dropped {
		out.Content, out.IsError = llm.DroppedNotice(n, limit), true
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		// The attempt's first heartbeat (startBeat sends it before
		// returning) answered that the call was canceled while its task
		// was on its way here: the tool never starts.
		return signals.ToolOutput{}, err
	}
	res, err := t.execute(details.context(ctx, in.Name), in, tools.Call{
		AgentID: ref.AgentID, CallID: in.CallID, Name: in.Name,
		Arguments: args, IdempotencyKey: in.IdempotencyKey,
	})
	switch {
	case err == nil:
		out.Content, out.IsError, out.ConcludesTurn = res.Content, res.IsError, res.ConcludesTurn
		return out, nil
	case ctx.Err() != nil:
		// Canceled with its turn, or the attempt was lost (the server
		// stopped taking its heartbeats): not the tool's failure.
		return signals.ToolOutput{}, ctx.Err()
	case errors.As(err, new(mcpFault)):
		// The server's fault, like a worker's: retried without counting.
		typ := ErrMCPUnavailable
		if in.MCP == nil {
			typ = ErrToolUnavailable
		}
		msg := tools.Truncate(fmt.Sprintf("tool %s call %s: %v", in.Name, in.CallID, err), MaxErrorBytes)
		return signals.ToolOutput{}, temporal.NewApplicationError(msg, typ)
	}
	return signals.ToolOutput{}, ownFailureKeeping(ctx, beat.stop, prior, budget(in.Attempts), details.checkpoint(), signals.ToolFailure,
		fmt.Sprintf("tool %s call %s: %v", in.Name, in.CallID, err))
}

// execute runs the call within the call's own time limit and returns when
// it is up even if the tool ignores its context: a tool that hangs fails on
// its own account, and its goroutine is left to finish by itself.
func (t *Tool) execute(ctx context.Context, in signals.ToolInput, call tools.Call) (tools.Result, error) {
	own, limit, cancel := ownContext(ctx)
	defer cancel()
	type reply struct {
		res tools.Result
		err error
	}
	done := make(chan reply, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- reply{err: fmt.Errorf("tool %s panicked: %v", call.Name, p)}
			}
		}()
		res, err := t.dispatch(own, in, call)
		done <- reply{res, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() == nil && errors.Is(own.Err(), context.DeadlineExceeded) {
			return tools.Result{}, fmt.Errorf("did not finish within %s", limit)
		}
		return r.res, r.err
	case <-own.Done():
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Result{}, fmt.Errorf("did not finish within %s", limit)
	}
}

// callDetails are the attempt's heartbeat details as the call changes
// them: its latest progress (tools.ReportProgress, an MCP server's
// notifications) and its checkpoint (tools.SaveCheckpoint), with the count
// of prior failures unchanged. The attempt's last heartbeat (ownFailure's)
// keeps the checkpoint, not the progress. Safe for concurrent use.
type callDetails struct {
	beat *beat
	mu   sync.Mutex
	r    attemptRecord
}

// context is ctx whose call reports its progress and checkpoint here.
func (d *callDetails) context(ctx context.Context, tool string) context.Context {
	attempt := activity.GetInfo(ctx).Attempt
	ctx = tools.WithProgress(ctx, func(p tools.Progress) {
		d.update(func(r *attemptRecord) { r.Progress = progressOf(tool, attempt, p) })
	})
	if activity.GetInfo(ctx).IsLocalActivity {
		return ctx // no heartbeat keeps a checkpoint
	}
	return tools.WithCheckpoints(ctx, tools.Checkpoints{Saved: d.checkpoint(), Save: func(js json.RawMessage) {
		// Sent now, not at the next tick: the SDK sends it at once unless
		// a heartbeat went out within its throttle interval.
		activity.RecordHeartbeat(ctx, d.update(func(r *attemptRecord) { r.Checkpoint = js }))
	}})
}

// update changes the details the heartbeats carry and returns them.
func (d *callDetails) update(f func(*attemptRecord)) attemptRecord {
	d.mu.Lock()
	defer d.mu.Unlock()
	f(&d.r)
	d.beat.set(d.r)
	return d.r
}

func (d *callDetails) checkpoint() json.RawMessage {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.r.Checkpoint
}
