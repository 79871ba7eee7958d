package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/signals"
)

// callTool runs the tool activity as the agent workflow does: a fault is
// retried, here up to 10 attempts.
func callTool(ctx workflow.Context, in signals.ToolInput) (signals.ToolOutput, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute + signals.ActivityGrace,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 10},
	})
	var out signals.ToolOutput
	err := workflow.ExecuteActivity(ctx, signals.ToolActivity, in).Get(ctx, &out)
	return out, err
}

func TestAFaultSaysWhyAndWhichOfTheCallsFaultsItIs(t *testing.T) {
	_, err := runTool(t, newFixture(t, false).manager(), "crash_always", `{}`)
	requireFault(t, err, `call tool "crash_always" of MCP server "srv": no answer: its process exited or closed its output`)
	require.Contains(t, err.Error(), "(fault 1 of 3 of this call: retried; at 3 the model is told the call failed)")
}

func TestAToolThatCrashesItsServerEveryTimeIsAnErrorResultAfterMaxMCPFaults(t *testing.T) {
	f := newFixture(t, false)
	reg, err := tools.NewRegistry()
	require.NoError(t, err)
	a := &activities.Tool{Runner: reg, Log: noLog{}, MCP: &mcp.Caller{Sessions: f.manager()}}
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(quiet))
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(callTool)
	env.RegisterActivityWithOptions(a.Run, activity.RegisterOptions{Name: signals.ToolActivity})
	attempts := 0
	env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) { attempts++ })

	env.ExecuteWorkflow(callTool, signals.ToolInput{
		CallID: "call_2_0", Name: "srv__crash_always", IdempotencyKey: testKey, Arguments: []byte(`{}`),
		MCP: &signals.MCPGrant{Server: "srv", Tool: "crash_always"},
	})
	require.NoError(t, env.GetWorkflowError(), "the call ends with a result, not a failure")
	var out signals.ToolOutput
	require.NoError(t, env.GetWorkflowResult(&out))
	require.True(t, out.IsError)
	want := fmt.Sprintf(`MCP server "srv" crashed or lost its connection on tool "crash_always" %d times in a row, each time before it answered`, activities.MaxMCPFaults)
	require.True(t, strings.HasPrefix(out.Content, want), out.Content)
	require.Contains(t, out.Content, "its process exited")
	require.NotContains(t, out.Content, "worker's log", "the operator's hint is not for the model")
	require.Equal(t, activities.MaxMCPFaults, attempts, "one server process a fault, no more")
}
