package e2e

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Edit before approve (issue 25) against a real server.

// sendTool records every set of arguments it ran with.
type sendTool struct {
	mu  sync.Mutex
	ran []string
}

func (s *sendTool) tool() tools.Tool {
	return tools.Tool{
		Name: "send", Description: "Send a note.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"}},"required":["to"],"additionalProperties":false}`),
		Run: func(_ context.Context, c tools.Call) (tools.Result, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.ran = append(s.ran, string(c.Arguments))
			return tools.Result{Content: "sent with " + string(c.Arguments)}, nil
		},
	}
}

func (s *sendTool) runs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ran...)
}

func TestAnApprovalWithEditedArgumentsRunsTheToolOnceWithThem(t *testing.T) {
	e := newEnv(t)
	send := &sendTool{}
	e.startWorker(send.tool())
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "editing", Options: signals.AgentOptions{Tools: []string{"send"},
		Approval: &signals.ApprovalPolicy{Tools: []string{"send"}}}, First: `/tool send {"to":"ceo@example.com"}`})
	require.NoError(t, err)
	call := waitPendingCall(ctx, t, h)

	_, err = h.ApproveWith(ctx, call, "alice", "", agent.WithArgs(json.RawMessage(`{"to":42}`)))
	require.ErrorIs(t, err, signals.ErrInvalidEdit, "the schema refuses it")
	require.ErrorContains(t, err, "to")
	_, err = h.ApproveWith(ctx, call, "alice", "", agent.WithArgs(json.RawMessage(`{"to":"a","cc":"b"}`)))
	require.ErrorIs(t, err, signals.ErrInvalidEdit, "no property the schema does not allow")
	st, err := h.Status(ctx)
	require.NoError(t, err)
	require.Len(t, st.Pending, 1, "a refused edit leaves the call waiting")
	require.Empty(t, send.runs())

	d, err := h.ApproveWith(ctx, call, "alice", "to ops instead", agent.WithArgs(json.RawMessage(`{"to":"ops@example.com"}`)))
	require.NoError(t, err)
	require.Positive(t, d.Seq)
	waitIdle(ctx, t, h)
	require.Equal(t, []string{`{"to":"ops@example.com"}`}, send.runs(), "the tool ran once, with the edit")

	evs := requireProjects(ctx, t, e, h)
	made := ofType[eventlog.DecisionMade](evs)[0]
	require.Equal(t, eventlog.DecisionMade{CallID: call, Approved: true, Decider: "alice", Text: "to ops instead",
		Args: `{"to":"ops@example.com"}`, Original: `{"to":"ceo@example.com"}`}, made)
	var conv eventlog.Conversation
	for _, ev := range evs {
		conv.Apply(ev)
	}
	var asked []eventlog.ToolCallRequest
	for _, m := range conv.Messages() {
		if m.Role == eventlog.RoleAssistant && len(m.ToolCalls) > 0 {
			asked = m.ToolCalls
		}
	}
	require.Len(t, asked, 1)
	require.JSONEq(t, `{"to":"ops@example.com"}`, string(asked[0].Arguments), "the model sees its call as made")
	require.JSONEq(t, `{"to":"ceo@example.com"}`, string(ofType[eventlog.AssistantMessage](evs)[0].ToolCalls[0].Arguments),
		"the log keeps what the model asked")
	require.NoError(t, h.Dispose(ctx, ""))
	requireReplaysAndProjects(ctx, t, e, h, "edit-before-approve")
}

func TestAPolicyThatForbidsEditsRefusesThemAndTheCallStillWaits(t *testing.T) {
	e := newEnv(t)
	send := &sendTool{}
	e.startWorker(send.tool())
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "no-edits", Options: signals.AgentOptions{Tools: []string{"send"},
		Approval: &signals.ApprovalPolicy{Tools: []string{"send"}, NoEdit: []string{"send"}}}, First: `/tool send {"to":"ceo@example.com"}`})
	require.NoError(t, err)
	call := waitPendingCall(ctx, t, h)
	_, err = h.ApproveWith(ctx, call, "alice", "", agent.WithArgs(json.RawMessage(`{"to":"ops@example.com"}`)))
	require.ErrorIs(t, err, signals.ErrInvalidEdit)
	_, err = h.Approve(ctx, call, "alice", "")
	require.NoError(t, err)
	waitIdle(ctx, t, h)
	require.Equal(t, []string{`{"to":"ceo@example.com"}`}, send.runs())
}
