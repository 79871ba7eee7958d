package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// listIDs returns the sorted workflow IDs visibility finds for query.
func (e *env) listIDs(ctx context.Context, query string) ([]string, error) {
	var ids []string
	var token []byte
	for {
		resp, err := e.c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: e.ts.GetDefaultNamespace(), Query: query, NextPageToken: token,
		})
		if err != nil {
			return nil, err
		}
		for _, ex := range resp.GetExecutions() {
			ids = append(ids, ex.GetExecution().GetWorkflowId())
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			slices.Sort(ids)
			return ids, nil
		}
	}
}

// requireListed polls visibility, which is eventually consistent, until
// query finds exactly want.
func (e *env) requireListed(t *testing.T, ctx context.Context, query string, want ...string) {
	t.Helper()
	slices.Sort(want)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := e.listIDs(ctx, query)
		if err == nil && slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("visibility query %q: got %v (error %v), want %v", query, got, err, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestOperatorFindsAgentsByStatusModelParentAndTurn(t *testing.T) {
	e := newEnv(t)
	g := newGate(t)
	e.startWorker(g.tool())
	ctx := ctxT(t, 30*time.Second)

	parent, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "vis-parent", Options: signals.AgentOptions{Provider: "scripted", Model: "m0"}, First: "/say parent",
	})
	require.NoError(t, err)
	child, err := e.agents.Create(ctx, agent.CreateOptions{
		ID:      "vis-child",
		Options: signals.AgentOptions{Provider: "scripted", Model: "m1", Parent: parent.ID},
		First:   "/say child",
	})
	require.NoError(t, err)
	for _, h := range []*agent.Handle{parent, child} {
		st, err := h.WaitIdle(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, st.Turn)
	}
	runner := startGated(t, ctx, e, g, "vis-runner")

	e.requireListed(t, ctx, "TetherStatus = 'idle' AND TetherParent = 'vis-parent'", "vis-child")
	e.requireListed(t, ctx, "TetherModel = 'scripted/m1'", "vis-child")
	e.requireListed(t, ctx, "TetherModel = 'scripted/m0' AND TetherTurn = 1", "vis-parent")
	e.requireListed(t, ctx, "TetherTurn = 1 AND TetherStatus = 'idle'", "vis-child", "vis-parent")
	e.requireListed(t, ctx, "TetherStatus = 'running'", "vis-runner")
	e.requireListed(t, ctx, "TetherStatus = 'running' AND TetherTurn = 1", "vis-runner")

	g.open(t, ctx)
	_, err = runner.WaitIdle(ctx)
	require.NoError(t, err)
	e.requireListed(t, ctx, "TetherStatus = 'running'")
	e.requireListed(t, ctx, "TetherTurn = 1 AND TetherStatus = 'idle'", "vis-child", "vis-parent", "vis-runner")
}

func TestActivityAndAgentSummariesAreReadableWithoutDecodingInputs(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, 30*time.Second)

	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID:      "summaries",
		Options: signals.AgentOptions{Provider: "scripted", Model: "m1", Tools: []string{"echo"}},
		First:   `/tool echo {"text":"hi"}`,
	})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	dc := converter.GetDefaultDataConverter()
	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	var summaries []string
	for _, ev := range history {
		if ev.GetEventType() != enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED {
			continue
		}
		var s string
		require.NoError(t, dc.FromPayload(ev.GetUserMetadata().GetSummary(), &s), "event %d", ev.GetEventId())
		require.True(t, strings.HasPrefix(s, "model ") || strings.HasPrefix(s, "tool "), "summary %q", s)
		summaries = append(summaries, s)
	}
	require.Equal(t, []string{
		"model m1 turn 1 step 1",
		"tool echo turn 1 step 1",
		"model m1 turn 1 step 2",
	}, summaries)

	desc, err := e.c.DescribeWorkflowExecution(ctx, h.ID, "")
	require.NoError(t, err)
	var agentSummary string
	require.NoError(t, dc.FromPayload(desc.GetExecutionConfig().GetUserMetadata().GetSummary(), &agentSummary))
	require.Equal(t, "agent scripted/m1", agentSummary)
}
