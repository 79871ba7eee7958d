package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// A call's checkpoint is what a tool records of work it started elsewhere
// (a remote task's ID) so that the call's next attempt, after its worker
// died or its attempt failed, resumes that work instead of starting it
// again. The tool activity keeps it in the attempt's heartbeat details,
// which Temporal hands to the next attempt; it never reaches the model or
// the agent's log. A local tool has no heartbeat, so no checkpoint.

// MaxCheckpointBytes bounds a checkpoint's JSON: it rides on every
// heartbeat of the call.
const MaxCheckpointBytes = 4 << 10

// ErrNoCheckpoint is SaveCheckpoint's error where nothing keeps one: a
// local tool, or a context the tool activity did not make.
var ErrNoCheckpoint = errors.New("this call keeps no checkpoint (a local tool, or not run by the tool activity)")

// Checkpoints is how the tool activity keeps a call's checkpoint: Saved is
// what an earlier attempt saved (nil for none); Save records a new one for
// the attempts after this one. Save must be safe for concurrent use.
type Checkpoints struct {
	Saved json.RawMessage
	Save  func(json.RawMessage)
}

type checkpointKey struct{}

// WithCheckpoints returns ctx whose tool call keeps its checkpoint in c.
// The tool activity installs it for every call it runs as a regular
// activity.
func WithCheckpoints(ctx context.Context, c Checkpoints) context.Context {
	return context.WithValue(ctx, checkpointKey{}, c)
}

// SaveCheckpoint records v (as JSON, at most MaxCheckpointBytes) for the
// call's later attempts; it replaces what was saved before. It is on its
// way to Temporal with the attempt's next heartbeat, within the worker's
// heartbeat interval: a tool whose effect must not repeat still dedupes on
// Call.IdempotencyKey, since a crash inside that interval loses it.
func SaveCheckpoint(ctx context.Context, v any) error {
	c, ok := ctx.Value(checkpointKey{}).(Checkpoints)
	if !ok || c.Save == nil {
		return ErrNoCheckpoint
	}
	js, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if len(js) > MaxCheckpointBytes {
		return fmt.Errorf("checkpoint of %d bytes: at most %d", len(js), MaxCheckpointBytes)
	}
	c.Save(js)
	return nil
}

// LoadCheckpoint reads into v what an earlier attempt of the call saved
// last; false when none did.
func LoadCheckpoint(ctx context.Context, v any) (bool, error) {
	c, ok := ctx.Value(checkpointKey{}).(Checkpoints)
	if !ok || len(c.Saved) == 0 {
		return false, nil
	}
	if err := json.Unmarshal(c.Saved, v); err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	return true, nil
}

// UnavailableError marks a tool's failure as a fault of a service it
// depends on (a remote server that is down, answers HTTP 5xx or breaks its
// connection), not of the call: the tool activity retries the call without
// counting it against the call's attempts, as it does an MCP server's
// fault, and the model reads an error result only once that many faulted
// attempts of the call came in a row (activities.MaxMCPFaults).
type UnavailableError struct {
	Err error
}

func (e *UnavailableError) Error() string { return e.Err.Error() }

func (e *UnavailableError) Unwrap() error { return e.Err }

// Unavailable marks err as a fault (UnavailableError). Unavailable(nil)
// is nil.
func Unavailable(err error) error {
	if err == nil {
		return nil
	}
	return &UnavailableError{Err: err}
}
