package e2e

import (
	"encoding/json"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// sentMessage is the message of one message/send the remote received.
type sentMessage struct {
	ID        string `json:"messageId"`
	ContextID string `json:"contextId"`
	TaskID    string `json:"taskId"`
}

// sentMessages are the messages of the message/send calls the remote
// received, in order.
func (l *rpcLog) sentMessages(t *testing.T) []sentMessage {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []sentMessage
	for _, c := range l.calls {
		if c.Method != "message/send" {
			continue
		}
		var p struct {
			Message sentMessage `json:"message"`
		}
		require.NoError(t, json.Unmarshal(c.Params, &p))
		out = append(out, p.Message)
	}
	return out
}

var inputTaskID = regexp.MustCompile(`call a2a__helper again with task_id "([^"]+)" and the answer as message`)

// taskToAnswer is the remote task an input-required result asks the
// model to answer.
func taskToAnswer(t *testing.T, r eventlog.ToolResult) string {
	t.Helper()
	m := inputTaskID.FindStringSubmatch(r.Content)
	require.NotNil(t, m, "an input-required result names the task to answer: %s", r.Content)
	return m[1]
}

// turnResults runs one turn of h from message and returns the tool
// results it recorded.
func turnResults(t *testing.T, h *agent.Handle, message string) []eventlog.ToolResult {
	t.Helper()
	ctx := ctxT(t, 2*time.Minute)
	before, err := h.Log(ctx)
	require.NoError(t, err)
	_, err = h.Followup(ctx, message)
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	return ofType[eventlog.ToolResult](events(t, log[len(before):]))
}

// Two clusters, an agent of the first calling an agent of the second as
// a2a:helper: the remote agent asks a question (ask_human), then waits
// for an approval, and each time its task is input-required. The calling
// agent's model reads what the remote asks as its tool result, with the
// remote task to answer; its answer, a second call with that task_id, is
// the next message of the same remote task (never a new task or a new
// remote agent), which the remote server turns into the remote agent's
// answer or approval; the remote agent resumes, and the call's result is
// that same task completed, with the remote's final answer.
func TestARemoteAgentsQuestionAndApprovalReachTheCallerAndItsAnswersResumeTheSameRemoteTask(t *testing.T) {
	remote, caller := newEnv(t), newEnv(t)
	ctx := ctxT(t, 6*time.Minute)
	url, rec := serveA2A(t, remote, signals.AgentOptions{Tools: []string{"ask_human", "calculate"},
		Approval: &signals.ApprovalPolicy{Tools: []string{"calculate"}}})
	startApp(t, remote)
	startApp(t, caller, "--a2a-config", writeA2AConfig(t, url))

	h, err := caller.agents.Create(ctx, agent.CreateOptions{ID: "caller", Options: signals.AgentOptions{Tools: []string{"a2a:helper"}}})
	require.NoError(t, err)

	// The question.
	asked := turnResults(t, h, helperCall(t, map[string]string{"message": `/tool ask_human {"question":"which colour?"}`}))
	require.Len(t, asked, 1)
	require.False(t, asked[0].IsError, "a question is no failure: %s", asked[0].Content)
	require.Contains(t, asked[0].Content, "A2A agent helper needs input to go on with task ")
	require.Contains(t, asked[0].Content, "which colour?")
	question := taskToAnswer(t, asked[0])
	remoteID := remoteAgent(t, rec)
	require.Equal(t, remoteID+":"+rec.sentMessages(t)[0].ID, question, "the task is the remote's first message")

	answered := turnResults(t, h, helperCall(t, map[string]string{"task_id": question, "message": "blue"}))
	require.Len(t, answered, 1)
	require.False(t, answered[0].IsError, answered[0].Content)
	require.Contains(t, answered[0].Content, "A2A agent helper completed task "+question+";", "the answer completed the same remote task")
	require.Contains(t, answered[0].Content, "blue")

	// The approval, in the same remote conversation.
	waiting := turnResults(t, h, helperCall(t, map[string]string{"context_id": remoteID, "message": `/tool calculate {"expression":"6*7"}`}))
	require.Len(t, waiting, 1)
	require.False(t, waiting[0].IsError, waiting[0].Content)
	require.Contains(t, waiting[0].Content, "calculate waits for approval")
	approval := taskToAnswer(t, waiting[0])
	require.NotEqual(t, question, approval)

	approved := turnResults(t, h, helperCall(t, map[string]string{"task_id": approval, "message": "approve: fine"}))
	require.Len(t, approved, 1)
	require.False(t, approved[0].IsError, approved[0].Content)
	require.Contains(t, approved[0].Content, "A2A agent helper completed task "+approval+";")
	require.Contains(t, approved[0].Content, "42")

	// Four messages to the remote: two that opened tasks, and two that
	// answered them, each naming its task.
	sent := rec.sentMessages(t)
	require.Len(t, sent, 4)
	require.Equal(t, []string{"", question, "", approval}, []string{sent[0].TaskID, sent[1].TaskID, sent[2].TaskID, sent[3].TaskID})
	require.Equal(t, remoteID, sent[2].ContextID)
	ids := []string{sent[0].ID, sent[1].ID, sent[2].ID, sent[3].ID}
	require.Len(t, slices.Compact(slices.Sorted(slices.Values(ids))), 4, "each call sends its own message")

	// The remote agent: one agent, two messages in its inbox (the answers
	// are decisions, not messages), a question answered and a call
	// approved by the A2A server, and each tool run once.
	rh, err := remote.agents.Attach(ctx, remoteID)
	require.NoError(t, err)
	rlog, err := rh.Log(ctx)
	require.NoError(t, err)
	revs := events(t, rlog)
	require.Len(t, ofType[eventlog.InboxInserted](revs), 2)
	decisions := ofType[eventlog.DecisionMade](revs)
	require.Len(t, decisions, 2)
	for _, d := range decisions {
		require.Equal(t, "a2a", d.Decider)
		require.True(t, d.Approved)
	}
	require.Len(t, toolCalls(t, rlog, "calculate"), 1)
	require.Contains(t, approved[0].Content, lastAnswer(revs))
}

// An agent's turn canceled while its a2a:helper call waits on the remote
// task: the call's activity is canceled, sends tasks/cancel for its task,
// and the remote server cancels the remote agent's turn (its log records
// the turn canceled, with the A2A cause); the caller's call ends canceled,
// the remote's tool started once, the message sent once.
func TestCancelingTheCallersTurnCancelsTheRemoteTaskAndItsTurn(t *testing.T) {
	remote, caller := newEnv(t), newEnv(t)
	ctx := ctxT(t, 4*time.Minute)
	url, rec := serveA2A(t, remote, signals.AgentOptions{Tools: []string{"wait"}})
	startApp(t, remote)
	startApp(t, caller, "--a2a-config", writeA2AConfig(t, url))

	h, err := caller.agents.Create(ctx, agent.CreateOptions{ID: "caller",
		Options: signals.AgentOptions{Tools: []string{"a2a:helper"}},
		First:   helperCall(t, map[string]string{"message": `/tool wait {"seconds": 600}`})})
	require.NoError(t, err)
	waitFor(t, time.Minute, "the remote agent to send its message", func() bool { return len(rec.sentMessages(t)) == 1 })
	remoteID := remoteAgent(t, rec)
	// The recorder sees the request before the server has started the
	// agent it names.
	var rh *agent.Handle
	waitFor(t, time.Minute, "the remote agent to exist", func() bool {
		rh, err = remote.agents.Attach(ctx, remoteID)
		return err == nil
	})
	waitFor(t, time.Minute, "the remote agent's wait to start", func() bool {
		log, err := rh.Log(ctx)
		return err == nil && len(toolCalls(t, log, "wait")) == 1
	})

	require.NoError(t, h.Cancel(ctx, "the person changed their mind", true))
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	waitFor(t, time.Minute, "the remote task to be canceled", func() bool { return slices.Contains(rec.methods(0), "tasks/cancel") })
	_, err = rh.WaitIdle(ctx)
	require.NoError(t, err)

	log, err := h.Log(ctx)
	require.NoError(t, err)
	results := ofType[eventlog.ToolResult](events(t, log))
	require.Len(t, results, 1)
	require.Equal(t, eventlog.ToolCanceled, results[0].Outcome, results[0].Content)

	rlog, err := rh.Log(ctx)
	require.NoError(t, err)
	revs := events(t, rlog)
	var ends []eventlog.TurnEnd
	for _, e := range ofType[eventlog.TurnEnd](revs) {
		if e.Reason == eventlog.EndCanceled {
			ends = append(ends, e)
		}
	}
	require.Len(t, ends, 1, "the remote agent's turn was canceled")
	require.Contains(t, ends[0].Error, "canceled over A2A (tasks/cancel "+remoteID+":")
	require.Len(t, toolCalls(t, rlog, "wait"), 1, "the remote's tool started once")
	require.Len(t, ofType[eventlog.InboxInserted](revs), 1)
	methods := rec.methods(0)
	require.Len(t, slices.DeleteFunc(slices.Clone(methods), func(m string) bool { return m != "message/send" }), 1, "the message was sent once")
	require.Len(t, slices.DeleteFunc(slices.Clone(methods), func(m string) bool { return m != "tasks/cancel" }), 1, "canceled once")
}
