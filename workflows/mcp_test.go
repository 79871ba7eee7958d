package workflows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// The workflow's side of MCP tools: the listing activity runs at the step
// boundary, its result is journaled by reference, calls carry their
// server tool. The activities themselves are tested with real servers in
// activities/mcp and e2e.

var mcpListing = eventlog.ServerTools{Server: "files", Digest: "sha256:f1", Tools: []eventlog.MCPTool{
	{Name: "read", ReadOnly: true}, {Name: "delete"},
}}

func mcpHarness(t *testing.T, list func(signals.ListToolsInput) (eventlog.ToolsListed, error), model modelFunc) (*harness, *[]signals.ListToolsInput) {
	h := newHarnessWith(t, Config{Tools: []string{"mcp:files"}}, model)
	var asked []signals.ListToolsInput
	h.env.OnActivity(signals.ListToolsActivity, mock.Anything, mock.Anything).
		Return(func(_ context.Context, in signals.ListToolsInput) (eventlog.ToolsListed, error) {
			asked = append(asked, in)
			return list(in)
		})
	return h, &asked
}

func TestMCPToolsAreListedOnceATurnAndCalledWithTheirServerTool(t *testing.T) {
	var seenTools [][]string
	h, asked := mcpHarness(t, func(in signals.ListToolsInput) (eventlog.ToolsListed, error) {
		if in.Known["files"] == mcpListing.Digest {
			return eventlog.ToolsListed{Servers: []eventlog.ServerTools{{Server: "files", Unchanged: true}}}, nil
		}
		return eventlog.ToolsListed{Servers: []eventlog.ServerTools{mcpListing}}, nil
	}, func(in signals.ModelInput) (signals.ModelOutput, error) {
		seenTools = append(seenTools, in.Call.Tools)
		if in.Call.Turn == 1 && in.Call.Step == 1 {
			return calls("files__read"), nil
		}
		return answer("done"), nil
	})
	var got []signals.ToolInput
	h.env.OnActivity(signals.ToolActivity, mock.Anything, mock.Anything).
		Return(func(_ context.Context, in signals.ToolInput) (signals.ToolOutput, error) {
			got = append(got, in)
			return signals.ToolOutput{CallID: in.CallID, Name: in.Name, Content: "contents"}, nil
		})
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "m1", Content: "again"})
	evs := h.run(signals.AgentOptions{Tools: []string{"mcp:files"}}, "read it", time.Hour)

	require.Len(t, *asked, 2, "one listing a turn, none for the turn's second step")
	require.Equal(t, map[string]string{"files": "sha256:f1"}, (*asked)[1].Known)
	require.Equal(t, [][]string{{"files__read", "files__delete"}, {"files__read", "files__delete"}, {"files__read", "files__delete"}}, seenTools)
	require.Len(t, got, 1)
	require.Equal(t, &signals.MCPGrant{Server: "files", Tool: "read"}, got[0].MCP)
	listed := only[eventlog.ToolsListed](evs)
	require.Len(t, listed, 1, "the unchanged second listing records nothing")
	require.Equal(t, []eventlog.ServerTools{mcpListing}, listed[0].Servers, "the log restores the listing from the activity's result")
}

func TestAnMCPListingThatFailsForGoodLeavesTheTurnRunning(t *testing.T) {
	h, asked := mcpHarness(t, func(signals.ListToolsInput) (eventlog.ToolsListed, error) {
		return eventlog.ToolsListed{}, temporal.NewApplicationError("worker lost its config", "test")
	}, byStep(nil))
	evs := h.run(signals.AgentOptions{Tools: []string{"mcp:files"}}, "hello", time.Hour)
	require.Greater(t, len(*asked), 3, "faults are retried until the listing's deadline")
	listed := only[eventlog.ToolsListed](evs)
	require.Len(t, listed, 1)
	require.Contains(t, listed[0].Servers[0].Error, "worker lost its config")
	ends := only[eventlog.TurnEnd](evs)
	require.Len(t, ends, 1)
	require.Equal(t, eventlog.EndCompleted, ends[0].Reason)
}

func TestAnAgentNamingAnUnconfiguredMCPServerIsRefused(t *testing.T) {
	h, _ := mcpHarness(t, func(signals.ListToolsInput) (eventlog.ToolsListed, error) {
		return eventlog.ToolsListed{}, errors.New("unreachable")
	}, byStep(nil))
	h.env.ExecuteWorkflow(signals.AgentWorkflow, signals.AgentInput{Options: signals.AgentOptions{Tools: []string{"mcp:search"}}})
	require.True(t, h.env.IsWorkflowCompleted())
	err := h.env.GetWorkflowError()
	require.ErrorContains(t, err, `MCP server "search" is not configured on this worker`)
}
