package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// A signal delivered in the workflow task that ends a run's last turn,
// before the run's coroutines have run, is taken before the run continues
// as new: either this run answers it or the seed carries it. (It used to
// sit in the hands of the coroutine that receives it while the run closed,
// and was lost: a child's report was, across its parent's Continue-As-New.)
func TestASignalDeliveredWithTheLastAnswerOfARunIsNotLostToContinueAsNew(t *testing.T) {
	var h *harness
	h = newHarnessWith(t, Config{MaxRunTurns: 1}, func(in signals.ModelInput) (signals.ModelOutput, error) {
		if in.Call.Turn == 1 {
			// Delivered now, taken by the workflow task this answer starts.
			h.env.SignalWorkflowSkippingWorkflowTask(signals.FollowupSignal.Name, signals.Message{ID: "late", Content: "one more"})
		}
		return answer("done"), nil
	})
	h.env.ExecuteWorkflow(signals.AgentWorkflow, signals.AgentInput{Options: tools, First: &signals.Message{ID: "m0", Content: "one"}})
	require.True(t, workflow.IsContinueAsNewError(h.env.GetWorkflowError()), "%v", h.env.GetWorkflowError())
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, h.env.GetWorkflowError(), &can)
	var next signals.AgentInput
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.NotNil(t, next.Seed)

	evs := h.log()
	inserted := only[eventlog.InboxInserted](evs)
	require.Len(t, inserted, 2, "the late followup was recorded")
	require.Equal(t, eventlog.MessageID("late"), inserted[1].MessageID)
	if eventlog.ConsumedWork(evs)["late"].Progress != eventlog.ProgressDone {
		pending := next.Seed.State.Inbox.NextTurn
		require.Len(t, pending, 1, "unanswered, it rides in the seed")
		require.Equal(t, eventlog.MessageID("late"), pending[0].ID)
	}
}
