package tools_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// testWorkflowID is the workflow ID the SDK's test activity environment
// runs activities under: the agent whose call it is.
const testWorkflowID = "default-test-workflow-id"

type noLog struct{}

func (noLog) ToolCall(context.Context, signals.LogRef, int64, string) (eventlog.ToolCallRequest, error) {
	panic("the arguments travel inline")
}

// The tool activity hands a typed tool the call's idempotency key, agent,
// turn and step through its context.
func TestTypedToolReadsItsCallThroughTheToolActivity(t *testing.T) {
	type seen struct {
		call       tools.Call
		turn, step int
		ok         bool
	}
	var got seen
	reg, err := tools.NewRegistry(tools.New("lookup", "Look an order up.",
		func(ctx context.Context, a struct {
			Order string `json:"order"`
		}) (string, error) {
			got.call, _ = tools.CallOf(ctx)
			got.turn, got.step, got.ok = got.call.TurnStep()
			return "found " + a.Order, nil
		}))
	require.NoError(t, err)
	tool := &activities.Tool{Runner: reg, Log: noLog{}}
	require.NoError(t, tool.Validate())
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(tool.Run)
	in := signals.ToolInput{CallID: "call_2_0", Name: "lookup", Arguments: []byte(`{"order":"A-7"}`),
		IdempotencyKey: signals.IdempotencyKey(testWorkflowID, 3, 2, "call_2_0")}
	val, err := env.ExecuteActivity(tool.Run, in)
	require.NoError(t, err)
	var out signals.ToolOutput
	require.NoError(t, val.Get(&out))

	require.Equal(t, "found A-7", out.Content)
	require.Equal(t, in.IdempotencyKey, got.call.IdempotencyKey)
	require.Equal(t, testWorkflowID, got.call.AgentID)
	require.Equal(t, "call_2_0", got.call.CallID)
	require.True(t, got.ok)
	require.Equal(t, [2]int{3, 2}, [2]int{got.turn, got.step})
}
