package agent

import (
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/signals"
)

func TestProgressIsReadOnlyFromTheRunningAttemptOfAToolCall(t *testing.T) {
	dc := converter.GetDefaultDataConverter()
	beat := func(attempt int32) *commonpb.Payloads {
		p, err := dc.ToPayloads(map[string]any{"failures": 1, "progress": map[string]any{
			"tool": "files__index", "attempt": attempt, "progress": 40, "total": 100, "message": "indexing",
		}})
		require.NoError(t, err)
		return p
	}
	noProgress, err := dc.ToPayloads(map[string]any{"failures": 1})
	require.NoError(t, err)
	started, scheduled := enumspb.PENDING_ACTIVITY_STATE_STARTED, enumspb.PENDING_ACTIVITY_STATE_SCHEDULED
	cases := []struct {
		name     string
		activity string
		state    enumspb.PendingActivityState
		attempt  int32
		details  *commonpb.Payloads
		want     bool
	}{
		{"the running attempt's progress", signals.ToolActivity, started, 2, beat(2), true},
		{"an earlier attempt's, before the next one's first heartbeat", signals.ToolActivity, started, 3, beat(2), false},
		{"an attempt waiting to run", signals.ToolActivity, scheduled, 2, beat(2), false},
		{"a heartbeat with only the count", signals.ToolActivity, started, 2, noProgress, false},
		{"no heartbeat yet", signals.ToolActivity, started, 1, nil, false},
		{"a model call's heartbeat (its stream locator)", signals.ModelActivity, started, 2, beat(2), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := progressOf(dc, &workflowpb.PendingActivityInfo{
				ActivityId: "tool-3-1-0", ActivityType: &commonpb.ActivityType{Name: c.activity},
				State: c.state, Attempt: c.attempt, HeartbeatDetails: c.details,
			})
			require.Equal(t, c.want, ok)
			if c.want {
				require.Equal(t, CallProgress{ID: "tool-3-1-0", Tool: "files__index", Attempt: 2, Progress: 40, Total: 100, Message: "indexing"}, got)
			}
		})
	}
}
