package e2e

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// After a deploy under versioning has drained an old version and its
// workers have stopped, the agent's earlier runs, pinned to that version,
// have no worker left to answer their log query: the server refuses it
// ("no poller seen for task queue recently"). Log reads those runs from
// their histories instead, whole and without an error, and the run a
// worker serves by its query: the log reads across the chain as before.
func TestTheLogOfRunsOnADrainedVersionIsReadFromTheirHistory(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, 4*time.Minute)
	e.workerOptions = versionOptions("drained", "v1")
	v1 := e.startWorker(echoTool())
	makeCurrent(ctx, t, e, "drained", "v1")
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "drained-agent", Options: signals.AgentOptions{Tools: []string{"echo"}},
		First: `/tool echo {"text":"on v1"}`})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	run1 := currentRun(ctx, t, e, h.ID)

	e.workerOptions = versionOptions("drained", "v2")
	e.startWorker(echoTool())
	makeCurrent(ctx, t, e, "drained", "v2")
	up, err := e.c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: h.ID, UpdateName: signals.MaintainUpdate.Name,
		Args: []any{signals.Maintain{Task: signals.TaskUpgrade}}, WaitForStage: client.WorkflowUpdateStageCompleted})
	require.NoError(t, err)
	require.NoError(t, up.Get(ctx, nil))
	waitFor(t, time.Minute, "the agent's next run, on v2", func() bool {
		run := currentRun(ctx, t, e, h.ID)
		return run != run1 && buildOf(ctx, t, e, h.ID, run) == "v2"
	})
	_, err = h.Followup(ctx, `/tool echo {"text":"on v2"}`)
	require.NoError(t, err)
	idleAcrossRuns(ctx, t, h)
	want, _ := logOf(t, ctx, h) // v1's worker still answers for run 1

	v1.Stop()
	waitFor(t, 2*time.Minute, "the server to refuse queries of the run pinned to v1", func() bool {
		_, err := e.c.QueryWorkflow(ctx, h.ID, run1, signals.LogQuery.Name, signals.LogRequest{})
		var fp *serviceerror.FailedPrecondition
		return errors.As(err, &fp) && strings.Contains(fp.Message, "no poller seen")
	})
	got, err := h.Log(ctx)
	require.NoError(t, err, "the drained run is read from its history, not refused")
	require.Equal(t, want, got)
	texts := slices.Collect(func(yield func(string) bool) {
		for _, r := range ofType[eventlog.ToolResult](events(t, got)) {
			if !yield(r.Content) {
				return
			}
		}
	})
	require.Equal(t, []string{"echo: on v1", "echo: on v2"}, texts)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, describeRun(ctx, t, e, h.ID, run1).GetStatus())
}
