package a2atool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/tools"
)

// remoteAgent is a hand-written A2A agent served by the SDK's own server
// over HTTP on loopback. What it does follows the message text: "ask"
// asks a question and completes with the reply; "fail" fails; "cancel"
// is canceled; "slow N" works until N reads of the task; "never" works
// forever; anything else is echoed. A message ID it has seen returns its
// task again, as a server that honours message IDs does.
type remoteAgent struct {
	mu       sync.Mutex
	tasks    map[a2a.TaskID]*a2a.Task
	byMsg    map[string]a2a.TaskID
	sends    []*a2a.Message
	reads    map[a2a.TaskID]int
	slow     map[a2a.TaskID]int
	status   int // an HTTP status every JSON-RPC call gets instead, when set
	url      string
	listener net.Listener
}

func serveRemote(t *testing.T) *remoteAgent {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ra := &remoteAgent{tasks: map[a2a.TaskID]*a2a.Task{}, byMsg: map[string]a2a.TaskID{}, reads: map[a2a.TaskID]int{},
		slow: map[a2a.TaskID]int{}, url: "http://" + ln.Addr().String() + "/", listener: ln}
	card := &a2a.AgentCard{Name: "Echo", Description: "Echoes and asks.", URL: ra.url, PreferredTransport: a2a.TransportProtocolJSONRPC,
		ProtocolVersion: "0.3.0", Skills: []a2a.AgentSkill{{ID: "echo", Name: "echo", Description: "says it back"}}}
	mux := http.NewServeMux()
	mux.Handle("GET /.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	rpc := a2asrv.NewJSONRPCHandler(ra)
	mux.Handle("/{$}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ra.mu.Lock()
		status := ra.status
		ra.mu.Unlock()
		if status != 0 {
			http.Error(w, http.StatusText(status), status)
			return
		}
		rpc.ServeHTTP(w, r)
	}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ra
}

func (ra *remoteAgent) setStatus(code int) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	ra.status = code
}

func (ra *remoteAgent) sent() []*a2a.Message {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	return append([]*a2a.Message(nil), ra.sends...)
}

func status(state a2a.TaskState, note string) a2a.TaskStatus {
	s := a2a.TaskStatus{State: state}
	if note != "" {
		s.Message = &a2a.Message{ID: "s", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.TextPart{Text: note}}}
	}
	return s
}

func complete(t *a2a.Task, answer string) {
	t.Status = status(a2a.TaskStateCompleted, "")
	t.Artifacts = []*a2a.Artifact{{ID: "answer", Parts: a2a.ContentParts{a2a.TextPart{Text: answer}}}}
}

func (ra *remoteAgent) OnSendMessage(_ context.Context, p *a2a.MessageSendParams) (a2a.SendMessageResult, error) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	m := p.Message
	ra.sends = append(ra.sends, m)
	if id, ok := ra.byMsg[m.ID]; ok {
		return snapshot(ra.tasks[id]), nil
	}
	text := m.Parts[0].(a2a.TextPart).Text
	if m.TaskID != "" {
		t, ok := ra.tasks[m.TaskID]
		if !ok || t.Status.State != a2a.TaskStateInputRequired {
			return nil, fmt.Errorf("%w: no task %s waits for input", a2a.ErrInvalidParams, m.TaskID)
		}
		complete(t, "you said: "+text)
		ra.byMsg[m.ID] = t.ID
		return snapshot(t), nil
	}
	t := &a2a.Task{ID: a2a.TaskID(fmt.Sprintf("task-%d", len(ra.tasks)+1)), ContextID: m.ContextID}
	switch {
	case text == "ask":
		t.Status = status(a2a.TaskStateInputRequired, "what colour?")
	case text == "fail":
		t.Status = status(a2a.TaskStateFailed, "boom")
	case text == "cancel":
		t.Status = status(a2a.TaskStateCanceled, "stopped by its owner")
	case strings.HasPrefix(text, "slow "):
		var n int
		_, _ = fmt.Sscan(strings.TrimPrefix(text, "slow "), &n)
		ra.slow[t.ID] = n
		t.Status = status(a2a.TaskStateWorking, "")
	case text == "never":
		ra.slow[t.ID] = 1 << 30
		t.Status = status(a2a.TaskStateWorking, "")
	default:
		complete(t, "echo: "+text)
	}
	ra.tasks[t.ID], ra.byMsg[m.ID] = t, t.ID
	return snapshot(t), nil
}

// snapshot is a copy of t for the server to send, which the agent may
// change after.
func snapshot(t *a2a.Task) *a2a.Task {
	c := *t
	return &c
}

func (ra *remoteAgent) OnGetTask(_ context.Context, q *a2a.TaskQueryParams) (*a2a.Task, error) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	t, ok := ra.tasks[q.ID]
	if !ok {
		return nil, a2a.ErrTaskNotFound
	}
	ra.reads[q.ID]++
	if n, ok := ra.slow[q.ID]; ok && ra.reads[q.ID] >= n {
		complete(t, "done after "+fmt.Sprint(n)+" reads")
		delete(ra.slow, q.ID)
	}
	return snapshot(t), nil
}

func (ra *remoteAgent) OnSendMessageStream(context.Context, *a2a.MessageSendParams) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) { yield(nil, a2a.ErrUnsupportedOperation) }
}

func (ra *remoteAgent) OnResubscribeToTask(context.Context, *a2a.TaskIDParams) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) { yield(nil, a2a.ErrUnsupportedOperation) }
}

func (ra *remoteAgent) OnCancelTask(context.Context, *a2a.TaskIDParams) (*a2a.Task, error) {
	return nil, a2a.ErrTaskNotCancelable
}

func (ra *remoteAgent) OnGetTaskPushConfig(context.Context, *a2a.GetTaskPushConfigParams) (*a2a.TaskPushConfig, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

func (ra *remoteAgent) OnListTaskPushConfig(context.Context, *a2a.ListTaskPushConfigParams) ([]*a2a.TaskPushConfig, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

func (ra *remoteAgent) OnSetTaskPushConfig(context.Context, *a2a.TaskPushConfig) (*a2a.TaskPushConfig, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

func (ra *remoteAgent) OnDeleteTaskPushConfig(context.Context, *a2a.DeleteTaskPushConfigParams) error {
	return a2a.ErrPushNotificationNotSupported
}

func (ra *remoteAgent) OnGetExtendedAgentCard(context.Context) (*a2a.AgentCard, error) {
	return nil, a2a.ErrAuthenticatedExtendedCardNotConfigured
}

// tool is the worker's tool for the remote at url, in a registry as the
// worker has it, its card fetched as at the worker's start.
func tool(t *testing.T, url string, timeout time.Duration) (*tools.Registry, *Remote) {
	r := NewRemote(Agent{Name: "echo", URL: url, Timeout: timeout}, nil)
	r.Start(context.Background())
	reg, err := tools.NewRegistry(r.Tool())
	require.NoError(t, err)
	return reg, r
}

func call(t *testing.T, ctx context.Context, reg *tools.Registry, key string, args Args) (tools.Result, error) {
	js, err := json.Marshal(args)
	require.NoError(t, err)
	return reg.Execute(ctx, tools.Call{AgentID: "a", CallID: key, Name: "a2a__echo", Arguments: js, IdempotencyKey: "a/1/1/" + key})
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestTheToolIsDescribedFromTheRemotesCard(t *testing.T) {
	ra := serveRemote(t)
	reg, _ := tool(t, ra.url, time.Minute)
	specs, err := reg.Specs([]string{"a2a__echo"})
	require.NoError(t, err)
	require.Contains(t, specs[0].Description, "A remote agent, Echo, reached over the A2A protocol: Echoes and asks.")
	require.Contains(t, specs[0].Description, "- echo: says it back")
}

func TestACompletedTaskAnswersWithTheContextThatContinuesTheConversation(t *testing.T) {
	ra := serveRemote(t)
	reg, _ := tool(t, ra.url, time.Minute)
	ctx := ctxT(t)
	res, err := call(t, ctx, reg, "c1", Args{Message: "hello"})
	require.NoError(t, err)
	require.False(t, res.IsError, res.Content)
	first := ra.sent()[0]
	require.Equal(t, contextID("a/1/1/c1"), first.ContextID, "a new conversation's context is derived from the call")
	require.Equal(t, messageID("a/1/1/c1"), first.ID)
	require.Equal(t, fmt.Sprintf("echo: hello\n\n(A2A agent echo completed task task-1; to continue this conversation, call a2a__echo with context_id %q)", first.ContextID), res.Content)

	res, err = call(t, ctx, reg, "c2", Args{Message: "again", ContextID: first.ContextID})
	require.NoError(t, err)
	require.Contains(t, res.Content, "echo: again")
	require.Equal(t, first.ContextID, ra.sent()[1].ContextID, "the model's context_id continues the conversation")
}

func TestInputRequiredIsReadByTheModelWhichAnswersByCallingAgainWithTheTask(t *testing.T) {
	ra := serveRemote(t)
	reg, _ := tool(t, ra.url, time.Minute)
	ctx := ctxT(t)
	res, err := call(t, ctx, reg, "c1", Args{Message: "ask"})
	require.NoError(t, err)
	require.False(t, res.IsError, "a question is no failure")
	require.Equal(t, "A2A agent echo needs input to go on with task task-1: what colour?\n\nTo answer, call a2a__echo again with task_id \"task-1\" and the answer as message.", res.Content)
	res, err = call(t, ctx, reg, "c2", Args{Message: "blue", TaskID: "task-1"})
	require.NoError(t, err)
	require.False(t, res.IsError, res.Content)
	require.Contains(t, res.Content, "you said: blue")
	require.Equal(t, a2a.TaskID("task-1"), ra.sent()[1].TaskID, "the answer continues the same remote task")
}

func TestARemoteTaskThatFailsOrIsCanceledIsAnErrorResultAndABadRequestToo(t *testing.T) {
	ra := serveRemote(t)
	reg, _ := tool(t, ra.url, time.Minute)
	ctx := ctxT(t)
	for msg, want := range map[string]string{
		"fail":   "A2A agent echo's task task-", // failed: boom
		"cancel": "was canceled: stopped by its owner",
	} {
		res, err := call(t, ctx, reg, msg, Args{Message: msg})
		require.NoError(t, err)
		require.True(t, res.IsError, res.Content)
		require.Contains(t, res.Content, want)
	}
	res, err := call(t, ctx, reg, "bad", Args{Message: "blue", TaskID: "task-99"})
	require.NoError(t, err, "a request the remote refuses is the model's to read, not retried")
	require.True(t, res.IsError)
	require.Contains(t, res.Content, `A2A agent "echo" refused: `)
	res, err = call(t, ctx, reg, "empty", Args{Message: "  "})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Contains(t, res.Content, "message is empty")
	require.Len(t, ra.sent(), 3, "an empty message is never sent")
	res, err = reg.Execute(ctx, tools.Call{Name: "a2a__echo", Arguments: []byte(`{"message":1}`), IdempotencyKey: "k"})
	require.NoError(t, err)
	require.True(t, res.IsError, "malformed arguments are refused by the schema")
}

func TestAResendIsTheSameMessageAndAResumedCallFollowsItsTaskWithoutSending(t *testing.T) {
	ra := serveRemote(t)
	reg, _ := tool(t, ra.url, time.Minute)
	ctx := ctxT(t)
	var saved json.RawMessage
	keep := tools.WithCheckpoints(ctx, tools.Checkpoints{Save: func(js json.RawMessage) { saved = js }})
	res, err := call(t, keep, reg, "c1", Args{Message: "slow 2"})
	require.NoError(t, err)
	require.Contains(t, res.Content, "done after 2 reads")
	require.JSONEq(t, `{"task":"task-1","context":"`+contextID("a/1/1/c1")+`"}`, string(saved), "the remote task is the checkpoint")

	// An attempt lost before its checkpoint reached Temporal sends again:
	// the same message ID, which the remote answers with the same task.
	res, err = call(t, ctx, reg, "c1", Args{Message: "slow 2"})
	require.NoError(t, err)
	require.Contains(t, res.Content, "task task-1")
	sent := ra.sent()
	require.Len(t, sent, 2)
	require.Equal(t, sent[0].ID, sent[1].ID)

	// An attempt that has the checkpoint sends nothing and reads the task.
	resumed := tools.WithCheckpoints(ctx, tools.Checkpoints{Saved: saved, Save: func(json.RawMessage) {}})
	res, err = call(t, resumed, reg, "c1", Args{Message: "slow 2"})
	require.NoError(t, err)
	require.Contains(t, res.Content, "done after 2 reads")
	require.Len(t, ra.sent(), 2, "resumed, not sent again")
}

func TestATaskStillWorkingWhenTheWaitIsUpSaysSoAndCanBeWaitedOnLater(t *testing.T) {
	ra := serveRemote(t)
	reg, _ := tool(t, ra.url, time.Second)
	ctx := ctxT(t)
	res, err := call(t, ctx, reg, "c1", Args{Message: "slow 6"})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Contains(t, res.Content, `A2A agent echo is still working on task task-1 (working) after this call's wait of 1s. To wait for its answer, call a2a__echo again with task_id "task-1" and no message.`)
	require.Eventually(t, func() bool {
		res, err = call(t, ctx, reg, "c2", Args{TaskID: "task-1"})
		return err == nil && strings.Contains(res.Content, "done after 6 reads")
	}, 30*time.Second, 10*time.Millisecond, "a call with task_id alone waits on the task")
	require.Len(t, ra.sent(), 1, "waiting on a task sends no message")
}

func TestAnUnreachableOrFailingRemoteIsAFaultAndARefusalIsAnErrorResult(t *testing.T) {
	ra := serveRemote(t)
	reg, _ := tool(t, ra.url, time.Minute)
	ctx := ctxT(t)
	for _, code := range []int{http.StatusServiceUnavailable, http.StatusInternalServerError, http.StatusTooManyRequests} {
		ra.setStatus(code)
		_, err := call(t, ctx, reg, "c1", Args{Message: "hello"})
		var fault *tools.UnavailableError
		require.True(t, errors.As(err, &fault), "HTTP %d is a fault, retried: %v", code, err)
		require.Contains(t, err.Error(), fmt.Sprintf("HTTP %d", code))
	}
	ra.setStatus(http.StatusUnauthorized)
	res, err := call(t, ctx, reg, "c1", Args{Message: "hello"})
	require.NoError(t, err, "a refusal is no fault: no retry mends it")
	require.True(t, res.IsError)
	require.Contains(t, res.Content, `A2A agent "echo" refused the worker: HTTP 401 Unauthorized; check the token`)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := "http://" + ln.Addr().String() + "/"
	require.NoError(t, ln.Close())
	reg, r := tool(t, down, time.Minute)
	specs, err := reg.Specs([]string{"a2a__echo"})
	require.NoError(t, err)
	require.Contains(t, specs[0].Description, "Its agent card could not be fetched when this worker started", "an unreachable remote fails only its tool, and says so")
	_, err = call(t, ctx, reg, "c1", Args{Message: "hello"})
	var fault *tools.UnavailableError
	require.True(t, errors.As(err, &fault), "%v", err)
	require.Contains(t, err.Error(), "fetch the card of A2A agent \"echo\" at "+down+".well-known/agent-card.json")
	require.Nil(t, r.Card())
}
