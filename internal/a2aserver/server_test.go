package a2aserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

const token = "s3cret-token"

// fixture is the embedded Temporal server, a real agent worker (the
// scripted model, calculate, current_time and the loop's tools) and the
// A2A server over Tether's client, reached by the SDK's own client.
type fixture struct {
	t      *testing.T
	agents *agent.Client
	url    string
	client *a2aclient.Client
	// gate holds every call of the hold tool until it is closed.
	gate chan struct{}
}

// holdArgs are the hold tool's: none it reads.
type holdArgs struct {
	Note string `json:"note,omitempty"`
}

// holdTool keeps its turn working until gate closes.
func holdTool(gate <-chan struct{}) tools.Tool {
	return tools.New("hold", "waits until the test lets it go", func(ctx context.Context, _ holdArgs) (string, error) {
		select {
		case <-gate:
			return "let go", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, []Profile{
		{Name: "assistant", Description: "answers with a calculator and a person to ask", Options: signals.AgentOptions{Tools: []string{"calculate", "ask_human"}}},
		{Name: "plain", Options: signals.AgentOptions{Tools: []string{}}},
		{Name: "careful", Options: signals.AgentOptions{Tools: []string{"calculate"}, Approval: &signals.ApprovalPolicy{Tools: []string{"calculate"}}}},
	})
}

// newFixtureWith serves profiles.
func newFixtureWith(t *testing.T, profiles []Profile) *fixture {
	t.Helper()
	ts := testserver.New(t)
	c := ts.GetDefaultClient()
	attrs := map[string]enumspb.IndexedValueType{}
	for name, kind := range signals.SearchAttributeKinds {
		attrs[name] = enumspb.IndexedValueType(enumspb.IndexedValueType_value["INDEXED_VALUE_TYPE_"+strings.ToUpper(kind)])
	}
	_, err := c.OperatorService().AddSearchAttributes(context.Background(), &operatorservice.AddSearchAttributesRequest{
		Namespace: ts.GetDefaultNamespace(), SearchAttributes: attrs,
	})
	require.NoError(t, err)
	gate := make(chan struct{})
	reg, err := tools.NewRegistry(append([]tools.Tool{tools.Calculator(), tools.CurrentTime(time.Now), holdTool(gate)}, tools.LoopTools()...)...)
	require.NoError(t, err)
	hub := stream.NewHub(stream.HubOptions{})
	hubSrv := httptest.NewServer(hub.Handler())
	t.Cleanup(func() { hub.Close(); hubSrv.Close() })
	reader := activities.NewLogReader(activities.WorkflowLog{Client: c}, 0)
	// The model streams word by word, a few milliseconds apart, so a
	// stream can be seen live and dropped mid-answer.
	providers := map[string]activities.Provider{scripted.Name: scripted.Provider{WordDelay: 15 * time.Millisecond}}
	model := &activities.Model{
		Streams:   activities.HubStreams{Hub: hub, BaseURL: hubSrv.URL},
		Providers: providers, DefaultProvider: scripted.Name, Tools: reg, Log: reader, HeartbeatEvery: time.Second,
	}
	tool := &activities.Tool{Runner: reg, Log: reader, HeartbeatEvery: time.Second}
	require.NoError(t, model.Validate())
	require.NoError(t, tool.Validate())
	cfg := workerfx.WorkflowConfig(workflows.Config{ModelHeartbeat: 3 * time.Second, ToolHeartbeat: 3 * time.Second}, nil, reg)
	cfg.Feeds, cfg.Snapshots = model.Streams.(activities.HubStreams), reader
	cfg.Providers = slices.Sorted(maps.Keys(providers))
	ts.NewWorkerWithOptions(signals.TaskQueue, func(r worker.Registry) {
		workflows.Register(r, cfg)
		activities.Register(r, model, tool)
	}, worker.Options{})

	agents := agent.New(c, signals.TaskQueue)
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	t.Cleanup(srv.Close)
	describe := func(name string) string {
		if tl, ok := reg.Lookup(name); ok {
			return tl.Description
		}
		return ""
	}
	h, err := New(Options{
		Agents: agents, BaseURL: srv.URL, Token: token, Describe: describe, Profiles: profiles,
		Push: PushOptions{Allow: []string{"127.0.0.1"}, Timeout: 5 * time.Second},
	})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	srv.Config.Handler = h
	f := &fixture{t: t, agents: agents, url: srv.URL, gate: gate}
	f.client = f.clientFor("/")
	return f
}

// clientFor is the SDK's client for the card at path, with the token.
func (f *fixture) clientFor(path string) *a2aclient.Client {
	card, err := agentcard.DefaultResolver.Resolve(ctxT(f.t, 10*time.Second), f.url+path)
	require.NoError(f.t, err)
	c, err := a2aclient.NewFromCard(ctxT(f.t, 10*time.Second), card, a2aclient.WithInterceptors(bearerToken{}))
	require.NoError(f.t, err)
	return c
}

// bearerToken adds the token to every call, as a client told by the card.
type bearerToken struct {
	a2aclient.PassthroughInterceptor
}

func (bearerToken) Before(ctx context.Context, req *a2aclient.Request) (context.Context, error) {
	req.Meta["Authorization"] = []string{"Bearer " + token}
	return ctx, nil
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func userMessage(contextID, text string) *a2a.Message {
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: text})
	m.ContextID = contextID
	return m
}

func send(t *testing.T, f *fixture, m *a2a.Message) *a2a.Task {
	t.Helper()
	return sendVia(t, f.client, m)
}

func sendVia(t *testing.T, c *a2aclient.Client, m *a2a.Message) *a2a.Task {
	t.Helper()
	res, err := c.SendMessage(ctxT(t, 60*time.Second), &a2a.MessageSendParams{Message: m})
	require.NoError(t, err)
	task, ok := res.(*a2a.Task)
	require.True(t, ok, "message/send answers a task, not %T", res)
	return task
}

func answer(t *testing.T, task *a2a.Task) string {
	t.Helper()
	require.Len(t, task.Artifacts, 1, "the answer is one artifact")
	require.Len(t, task.Artifacts[0].Parts, 1)
	return task.Artifacts[0].Parts[0].(a2a.TextPart).Text
}

func TestTheCardsNameEachProfileItsSkillsAndTheBearerToken(t *testing.T) {
	f := newFixture(t)
	ctx := ctxT(t, 10*time.Second)
	card, err := agentcard.DefaultResolver.Resolve(ctx, f.url)
	require.NoError(t, err)
	require.Equal(t, "assistant", card.Name)
	require.Equal(t, f.url+"/", card.URL)
	require.True(t, card.Capabilities.Streaming)
	require.True(t, card.Capabilities.PushNotifications, "the server serves push notifications")
	var skills []string
	for _, s := range card.Skills {
		skills = append(skills, s.ID)
		require.NotEqual(t, s.ID, s.Description, "a skill's description is its tool's")
	}
	require.Equal(t, []string{"calculate", "ask_human"}, skills)
	require.Contains(t, card.SecuritySchemes, a2a.SecuritySchemeName("bearer"))
	require.Equal(t, []a2a.SecurityRequirements{{"bearer": a2a.SecuritySchemeScopes{}}}, card.Security)

	plain, err := agentcard.DefaultResolver.Resolve(ctx, f.url+"/agents/plain/")
	require.NoError(t, err)
	require.Equal(t, "plain", plain.Name)
	require.Equal(t, f.url+"/agents/plain/", plain.URL)
	require.Len(t, plain.Skills, 1)

	// Without the token a call is refused and no agent starts.
	resp, err := http.Post(f.url+"/", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","contextId":"no-token","role":"user","parts":[{"kind":"text","text":"/say hi"}]}}}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	_, err = f.agents.Attach(ctx, "no-token")
	require.ErrorIs(t, err, agent.ErrNotFound)
}

func TestSendOpensAnAgentAndTheNextSendInItsContextContinuesIt(t *testing.T) {
	f := newFixture(t)
	task := send(t, f, userMessage("", "/say four"))
	require.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	require.Equal(t, "four", answer(t, task))
	require.NotEmpty(t, task.ContextID)

	// The context is the agent; the message ID is Tether's.
	m := userMessage(task.ContextID, "/say five")
	second := send(t, f, m)
	require.Equal(t, task.ContextID, second.ContextID)
	require.Equal(t, "five", answer(t, second))
	h, err := f.agents.Attach(ctxT(t, 10*time.Second), task.ContextID)
	require.NoError(t, err)
	st, err := h.Status(ctxT(t, 10*time.Second))
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn, "two sends, two turns of one agent")

	got, err := f.client.GetTask(ctxT(t, 10*time.Second), &a2a.TaskQueryParams{ID: second.ID})
	require.NoError(t, err)
	require.Equal(t, a2a.TaskStateCompleted, got.Status.State)
	require.Equal(t, "five", answer(t, got))
	first, err := f.client.GetTask(ctxT(t, 10*time.Second), &a2a.TaskQueryParams{ID: task.ID})
	require.NoError(t, err)
	require.Equal(t, "four", answer(t, first), "each task keeps its own turn's answer")

	// A resend of the same message ID is delivered once: same task, no
	// new turn.
	again := send(t, f, m)
	require.Equal(t, second.ID, again.ID)
	st, err = h.Status(ctxT(t, 10*time.Second))
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn, "the resend opened no turn")
	log, err := h.Log(ctxT(t, 10*time.Second))
	require.NoError(t, err)
	inserted := 0
	for _, env := range log {
		if e, err := eventlog.Decode(env); err == nil {
			if in, ok := e.(eventlog.InboxInserted); ok && in.MessageID == eventlog.MessageID(m.ID) {
				inserted++
			}
		}
	}
	require.Equal(t, 1, inserted, "the message is in the log once")
}

func TestStreamSendsTheTaskThenItsAnswerAndAFinalCompletedStatus(t *testing.T) {
	f := newFixture(t)
	var events []a2a.Event
	for ev, err := range f.client.SendStreamingMessage(ctxT(t, 60*time.Second), &a2a.MessageSendParams{Message: userMessage("streamed", "/tool calculate {\"expression\":\"6*7\"}")}) {
		require.NoError(t, err)
		events = append(events, ev)
	}
	require.NotEmpty(t, events)
	first, ok := events[0].(*a2a.Task)
	require.True(t, ok, "the stream opens with the task, not %T", events[0])
	require.Equal(t, "streamed", first.ContextID)
	last, ok := events[len(events)-1].(*a2a.TaskStatusUpdateEvent)
	require.True(t, ok, "the stream ends with a status update, not %T", events[len(events)-1])
	require.True(t, last.Final)
	require.Equal(t, a2a.TaskStateCompleted, last.Status.State)
	var art *a2a.TaskArtifactUpdateEvent
	for _, ev := range events {
		if a, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
			art = a
		}
	}
	require.NotNil(t, art, "the answer comes as an artifact")
	require.Contains(t, art.Artifact.Parts[0].(a2a.TextPart).Text, "42")
}

func TestAQuestionIsInputRequiredAndTheNextMessageAnswersIt(t *testing.T) {
	f := newFixture(t)
	task := send(t, f, userMessage("asks", `/tool ask_human {"question":"which colour?"}`))
	require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
	require.NotNil(t, task.Status.Message)
	require.Contains(t, task.Status.Message.Parts[0].(a2a.TextPart).Text, "which colour?")

	reply := userMessage("asks", "blue")
	reply.TaskID = task.ID
	done := send(t, f, reply)
	require.Equal(t, task.ID, done.ID, "the reply resumes the same task")
	require.Equal(t, a2a.TaskStateCompleted, done.Status.State)
	require.Contains(t, answer(t, done), "blue")

	// A reply to a finished task is a clear error, and the agent is unharmed.
	_, err := f.client.SendMessage(ctxT(t, 10*time.Second), &a2a.MessageSendParams{Message: func() *a2a.Message {
		m := userMessage("asks", "red")
		m.TaskID = task.ID
		return m
	}()})
	require.ErrorIs(t, err, a2a.ErrInvalidParams)
	require.Equal(t, "still here", answer(t, send(t, f, userMessage("asks", "/say still here"))))
}

func TestAnApprovalIsInputRequiredAndApproveOrDenyResumesIt(t *testing.T) {
	f := newFixture(t)
	careful := f.clientFor("/agents/careful/")
	task := sendVia(t, careful, userMessage("careful", `/tool calculate {"expression":"6*7"}`))
	require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
	require.Contains(t, task.Status.Message.Parts[0].(a2a.TextPart).Text, "calculate waits for approval")

	// A reply that is neither approve nor deny is refused; the call still waits.
	bad := userMessage("careful", "maybe")
	bad.TaskID = task.ID
	_, err := careful.SendMessage(ctxT(t, 10*time.Second), &a2a.MessageSendParams{Message: bad})
	require.ErrorIs(t, err, a2a.ErrInvalidParams)
	got, err := careful.GetTask(ctxT(t, 10*time.Second), &a2a.TaskQueryParams{ID: task.ID})
	require.NoError(t, err)
	require.Equal(t, a2a.TaskStateInputRequired, got.Status.State)

	ok := userMessage("careful", "approve: fine")
	ok.TaskID = task.ID
	done := sendVia(t, careful, ok)
	require.Equal(t, a2a.TaskStateCompleted, done.Status.State)
	require.Contains(t, answer(t, done), "42")

	// Denied, the model reads the reason and the call never runs.
	second := sendVia(t, careful, userMessage("careful", `/tool calculate {"expression":"1+1"}`))
	require.Equal(t, a2a.TaskStateInputRequired, second.Status.State)
	no := userMessage("careful", "deny: not today")
	no.TaskID = second.ID
	denied := sendVia(t, careful, no)
	require.Equal(t, a2a.TaskStateCompleted, denied.Status.State)
	h, err := f.agents.Attach(ctxT(t, 10*time.Second), "careful")
	require.NoError(t, err)
	log, err := h.Log(ctxT(t, 10*time.Second))
	require.NoError(t, err)
	var decisions []bool
	for _, env := range log {
		if e, err := eventlog.Decode(env); err == nil {
			if d, ok := e.(eventlog.DecisionMade); ok {
				decisions = append(decisions, d.Approved)
				require.Equal(t, "a2a", d.Decider)
			}
		}
	}
	require.Equal(t, []bool{true, false}, decisions)
}

func TestCancelEndsTheRunningTurnAsTetherCancels(t *testing.T) {
	f := newFixture(t)
	// A turn that waits for a person runs until canceled.
	res, err := f.client.SendMessage(ctxT(t, 60*time.Second), &a2a.MessageSendParams{
		Message: userMessage("canceled", `/tool ask_human {"question":"go on?"}`),
	})
	require.NoError(t, err)
	task := res.(*a2a.Task)
	require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
	got, err := f.client.CancelTask(ctxT(t, 60*time.Second), &a2a.TaskIDParams{ID: task.ID})
	require.NoError(t, err)
	require.Equal(t, a2a.TaskStateCanceled, got.Status.State)
	_, err = f.client.CancelTask(ctxT(t, 10*time.Second), &a2a.TaskIDParams{ID: task.ID})
	require.ErrorIs(t, err, a2a.ErrTaskNotCancelable)
	_, err = f.client.GetTask(ctxT(t, 10*time.Second), &a2a.TaskQueryParams{ID: "canceled:no-such-message"})
	require.ErrorIs(t, err, a2a.ErrTaskNotFound)
}

// rpc posts body raw, with the token, and decodes the JSON-RPC answer.
func rpc(t *testing.T, f *fixture, body string) (code int, message string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.url+"/", bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(raw, &out), string(raw))
	require.NotNil(t, out.Error, "want a JSON-RPC error, got %s", raw)
	return out.Error.Code, out.Error.Message
}

func TestMalformedRequestsGetClearJSONRPCErrorsAndHarmNoAgent(t *testing.T) {
	f := newFixture(t)
	task := send(t, f, userMessage("unharmed", "/say before"))
	msg := func(fields string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"kind":"message","role":"user",` + fields + `}}}`
	}
	for _, c := range []struct {
		name, body string
		code       int
	}{
		{"not JSON", `{"jsonrpc":`, -32700},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"tasks/get","params":{"id":"x"}}`, -32600},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"tasks/explode","params":{}}`, -32601},
		{"params not an object (the SDK says parse error)", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":[1,2]}`, -32700},
		{"no message ID", msg(`"contextId":"unharmed","parts":[{"kind":"text","text":"x"}]`), -32602},
		{"a colon in the message ID", msg(`"messageId":"a:b","contextId":"unharmed","parts":[{"kind":"text","text":"x"}]`), -32602},
		{"agent role", `{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"kind":"message","role":"agent","messageId":"r1","contextId":"unharmed","parts":[{"kind":"text","text":"x"}]}}}`, -32602},
		{"a context ID no agent ID can be", msg(`"messageId":"c1","contextId":"two words","parts":[{"kind":"text","text":"x"}]`), -32602},
		{"no text", msg(`"messageId":"e1","contextId":"unharmed","parts":[{"kind":"text","text":"  "}]`), -32602},
		{"a file part", msg(`"messageId":"f1","contextId":"unharmed","parts":[{"kind":"file","file":{"uri":"file:///etc/passwd"}}]`), -32005},
		{"unknown task", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"unharmed:nope"}}`, -32001},
		{"a task ID of no form", `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"id":"nocolon"}}`, -32001},
		{"push config of a task ID of no form", `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/get","params":{"id":"x"}}`, -32001},
		{"push config of no URL", `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{"taskId":"unharmed:nope","pushNotificationConfig":{}}}`, -32602},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, message := rpc(t, f, c.body)
			require.Equal(t, c.code, code, message)
			require.NotEmpty(t, message)
		})
	}
	h, err := f.agents.Attach(ctxT(t, 10*time.Second), "unharmed")
	require.NoError(t, err)
	st, err := h.Status(ctxT(t, 10*time.Second))
	require.NoError(t, err)
	require.Equal(t, 1, st.Turn, "no malformed request reached the agent")
	require.Empty(t, st.NextTurn)
	require.Equal(t, "after", answer(t, send(t, f, userMessage(task.ContextID, "/say after"))))
}
