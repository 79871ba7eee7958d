package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// Issue 20: an encrypted message copied from agent A's history and sent,
// as it is, to agent B (by someone who may signal B but holds no key) is
// not decrypted by B: B's log never holds A's content, and B keeps
// working.
func TestCiphertextCopiedFromOneAgentIsRefusedByAnother(t *testing.T) {
	ctx := ctxT(t, 2*time.Minute)
	s := newSecrets(t)
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o700))
	w := startDevWorker(t, []string{"--dev", "--data-dir", dir, "--port", "0", "--ui-port", "0"},
		map[string]string{codec.EnvKeys: codecKey(t, "k1")})
	agents := agent.New(w.c, "", agent.WithDataConverter(w.dc))
	a, err := agents.Create(ctx, agent.CreateOptions{ID: "agent-a", First: "hello\n/say hi"})
	require.NoError(t, err)
	b, err := agents.Create(ctx, agent.CreateOptions{ID: "agent-b", First: "hello\n/say hi"})
	require.NoError(t, err)
	_, err = b.WaitIdle(ctx)
	require.NoError(t, err)
	_, err = a.Followup(ctx, s.user+"\n/say noted", agent.Acknowledged())
	require.NoError(t, err)
	st, err := a.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)

	history, err := projection.Fetch(ctx, w.c, a.ID, "")
	require.NoError(t, err)
	stolen := updateInput(t, history, signals.FollowupUpdate.Name)
	require.True(t, codec.Encrypted(stolen.GetPayloads()[0]))
	require.Equal(t, "agent-a", string(stolen.GetPayloads()[0].GetMetadata()[codec.MetadataWorkflowID]))
	_, err = w.c.WorkflowService().SignalWorkflowExecution(ctx, &workflowservice.SignalWorkflowExecutionRequest{
		Namespace:         w.srv.Namespace(),
		WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: b.ID},
		SignalName:        signals.FollowupSignal.Name,
		Input:             stolen,
		Identity:          "thief",
	})
	require.NoError(t, err, "the server takes the signal: only B's worker can judge it")

	_, err = b.Followup(ctx, "after the copy\n/say still here", agent.Acknowledged())
	require.NoError(t, err)
	st, err = b.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn, "the copied message started no turn")
	log, err := b.Log(ctx)
	require.NoError(t, err)
	raw, err := json.Marshal(log)
	require.NoError(t, err)
	require.False(t, bytes.Contains(raw, []byte(s.user)), "B decrypted A's message: %s", raw)
	requireLogHolds(t, log, "after the copy", "still here")
	historyB, err := projection.Fetch(ctx, w.c, b.ID, "")
	require.NoError(t, err)
	sent := updateInput(t, historyB, signals.FollowupUpdate.Name).GetPayloads()[0]
	require.Equal(t, b.ID, string(sent.GetMetadata()[codec.MetadataWorkflowID]), "a client binds what it sends to its target")
	logA, err := a.Log(ctx)
	require.NoError(t, err)
	requireLogHolds(t, logA, s.user)
}

// updateInput is the input of the first update named name in history: a
// Message, as a followup signal's is.
func updateInput(t *testing.T, history []*historypb.HistoryEvent, name string) *commonpb.Payloads {
	t.Helper()
	for _, e := range history {
		if e.GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED {
			continue
		}
		req := e.GetWorkflowExecutionUpdateAcceptedEventAttributes().GetAcceptedRequest()
		if req.GetInput().GetName() == name {
			return req.GetInput().GetArgs()
		}
	}
	t.Fatalf("no %s update in history", name)
	return nil
}

// Binding follows the SDK's contexts across workflows: a child's input
// (bound to the child), its result, and a detached child's reports (signals
// bound to the parent) all reach the agent they are meant for.
func TestBoundPayloadsCrossFromParentToChildAndBack(t *testing.T) {
	ctx := ctxT(t, 2*time.Minute)
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o700))
	w := startDevWorker(t, []string{"--dev", "--data-dir", dir, "--port", "0", "--ui-port", "0"},
		map[string]string{codec.EnvKeys: codecKey(t, "k1")})
	agents := agent.New(w.c, "", agent.WithDataConverter(w.dc))
	first := spawnLine("/say the child's answer", "wait") + "\n" + spawnLine("/say a detached report", "detach")
	h, err := agents.Create(ctx, agent.CreateOptions{ID: "bound-parent", Options: signals.AgentOptions{
		Tools: []string{signals.SpawnTool}}, First: first})
	require.NoError(t, err)
	waitFor(t, time.Minute, "the child's result and the detached report", func() bool {
		log, err := h.Log(ctx)
		if err != nil {
			return false
		}
		evs := events(t, log)
		res := ofType[eventlog.ToolResult](evs)
		return len(res) == 2 && len(ofType[eventlog.ChildSettled](evs)) == 2
	})
	log, err := h.Log(ctx)
	require.NoError(t, err)
	requireLogHolds(t, log, "the child's answer", "a detached report")
	history, err := projection.Fetch(ctx, w.c, h.ID, "")
	require.NoError(t, err)
	started := history[0].GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()[0]
	require.Equal(t, h.ID, string(started.GetMetadata()[codec.MetadataWorkflowID]), "the history is bound")
}
