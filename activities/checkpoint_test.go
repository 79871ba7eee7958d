package activities_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/tools"
)

// record is the heartbeat detail with a tool's checkpoint, in its wire
// form.
type record struct {
	Failures   int32           `json:"failures"`
	Checkpoint json.RawMessage `json:"checkpoint,omitempty"`
}

func (h *heartbeats) lastRecord(t *testing.T) record {
	h.mu.Lock()
	defer h.mu.Unlock()
	var r record
	require.True(t, h.details != nil && h.details.HasValues())
	require.NoError(t, h.details.Get(&r))
	return r
}

// checkpointTool saves {"task": TASK} unless an earlier attempt did, and
// then fails with err; it records what it found.
type checkpointTool struct {
	err   error
	found []string
}

func (c *checkpointTool) registry(t *testing.T) *tools.Registry {
	r, err := tools.NewRegistry(tools.Tool{Name: "echo", Description: "remote work", Run: func(ctx context.Context, _ tools.Call) (tools.Result, error) {
		var cp struct{ Task string }
		ok, err := tools.LoadCheckpoint(ctx, &cp)
		require.NoError(t, err)
		if ok {
			c.found = append(c.found, cp.Task)
			return tools.Result{Content: "resumed " + cp.Task}, nil
		}
		require.NoError(t, tools.SaveCheckpoint(ctx, map[string]string{"task": "t-1"}))
		return tools.Result{}, c.err
	}})
	require.NoError(t, err)
	return r
}

func TestAToolsCheckpointRidesOnItsHeartbeatsIntoTheNextAttempt(t *testing.T) {
	for name, err := range map[string]error{
		"after its own failure": errors.New("remote said no"),
		"after a fault":         tools.Unavailable(errors.New("remote down")),
	} {
		t.Run(name, func(t *testing.T) {
			tool := &checkpointTool{err: err}
			beats := listenHeartbeats(t)
			_, runErr := runToolIn(t, beats.env, &activities.Tool{Runner: tool.registry(t), Log: echoLog()}, echoInput)
			require.Error(t, runErr)
			left := beats.lastRecord(t)
			require.JSONEq(t, `{"task":"t-1"}`, string(left.Checkpoint), "the attempt's last heartbeat keeps the checkpoint")

			next := listenHeartbeats(t)
			next.env.SetHeartbeatDetails(left)
			out, runErr := runToolIn(t, next.env, &activities.Tool{Runner: tool.registry(t), Log: echoLog()}, echoInput)
			require.NoError(t, runErr)
			require.Equal(t, "resumed t-1", out.Content)
			require.Equal(t, []string{"t-1"}, tool.found)
			require.Equal(t, left.Failures, next.lastRecord(t).Failures)
		})
	}
}

func TestAToolWhoseServiceIsUnavailableIsRetriedWithoutCounting(t *testing.T) {
	tool := &checkpointTool{err: tools.Unavailable(errors.New("remote down"))}
	in := echoInput
	in.Attempts = 1 // one own failure would end the call
	beats := listenHeartbeats(t)
	_, err := runToolIn(t, beats.env, &activities.Tool{Runner: tool.registry(t), Log: echoLog()}, in)
	appErr := requireAppError(t, err)
	require.Equal(t, activities.ErrToolUnavailable, appErr.Type())
	require.False(t, appErr.NonRetryable(), "a fault is retried")
	require.Contains(t, appErr.Error(), "remote down")
	require.Zero(t, beats.lastRecord(t).Failures, "and not counted")
}
