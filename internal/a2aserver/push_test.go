package a2aserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// notification is one POST a receiver took.
type notification struct {
	header http.Header
	task   a2a.Task
}

// receiver is a real HTTP server that takes push notifications, in the
// order they arrive.
type receiver struct {
	url string
	got chan notification
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{got: make(chan notification, 64)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var task a2a.Task
		if req.Method != http.MethodPost || json.Unmarshal(body, &task) != nil {
			http.Error(w, "want a POSTed task", http.StatusBadRequest)
			return
		}
		r.got <- notification{header: req.Header.Clone(), task: task}
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/hook"
	return r
}

// next is the next notification, within a generous deadline.
func (r *receiver) next(t *testing.T) notification {
	t.Helper()
	select {
	case n := <-r.got:
		return n
	case <-time.After(60 * time.Second):
		t.Fatal("no push notification within 60s")
		return notification{}
	}
}

// until takes notifications until one is in state, and gives the states
// taken, in order.
func (r *receiver) until(t *testing.T, state a2a.TaskState) ([]a2a.TaskState, notification) {
	t.Helper()
	var states []a2a.TaskState
	for {
		n := r.next(t)
		states = append(states, n.task.Status.State)
		if n.task.Status.State == state {
			return states, n
		}
		require.False(t, n.task.Status.State.Terminal(), "states %v: want %s", states, state)
	}
}

// deadURL is an address on loopback where nothing listens.
func deadURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String() + "/hook"
	require.NoError(t, ln.Close())
	return url
}

// pollingClient sends without waiting (configuration.blocking false).
func (f *fixture) pollingClient(path string) *a2aclient.Client {
	card, err := agentcard.DefaultResolver.Resolve(ctxT(f.t, 10*time.Second), f.url+path)
	require.NoError(f.t, err)
	c, err := a2aclient.NewFromCard(ctxT(f.t, 10*time.Second), card, a2aclient.WithConfig(a2aclient.Config{Polling: true}), a2aclient.WithInterceptors(bearerToken{}))
	require.NoError(f.t, err)
	return c
}

func pushFixture(t *testing.T) *fixture {
	return newFixtureWith(t, []Profile{{Name: "holder", Options: signals.AgentOptions{Tools: []string{"hold", "ask_human"}}}})
}

// A task that goes working then completed is POSTed to the URL of
// message/send's pushNotificationConfig at each change, in order, with
// the config's token and credentials; a second config whose receiver is
// down delays and loses nothing of the first's, and the turn completes.
// Once the terminal state is sent the task's configs are gone.
func TestPushSendsEachStateChangeInOrderWithTheTokenAndADeadReceiverLosesNothingElse(t *testing.T) {
	f := pushFixture(t)
	rcv := newReceiver(t)
	c := f.pollingClient("/")
	ctx := ctxT(t, 3*time.Minute)
	m := userMessage("pushed", `/tool hold {}`)
	res, err := c.SendMessage(ctx, &a2a.MessageSendParams{Message: m, Config: &a2a.MessageSendConfig{PushConfig: &a2a.PushConfig{
		URL: rcv.url, Token: "tok-1", Auth: &a2a.PushAuthInfo{Schemes: []string{"Bearer"}, Credentials: "cred-1"},
	}}})
	require.NoError(t, err)
	task := res.(*a2a.Task)
	require.False(t, task.Status.State.Terminal())

	dead, err := c.SetTaskPushConfig(ctx, &a2a.TaskPushConfig{TaskID: task.ID, Config: a2a.PushConfig{ID: "dead", URL: deadURL(t)}})
	require.NoError(t, err)
	require.Equal(t, "dead", dead.Config.ID)
	list, err := c.ListTaskPushConfig(ctx, &a2a.ListTaskPushConfigParams{TaskID: task.ID})
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, rcv.url, list[0].Config.URL, "in the order they were set")
	require.NotEmpty(t, list[0].Config.ID, "the server names a config sent without an ID")

	// The hold tool keeps the turn working until the test lets it go.
	states, working := rcv.until(t, a2a.TaskStateWorking)
	require.Subset(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking}, states)
	require.Equal(t, "tok-1", working.header.Get("X-A2A-Notification-Token"))
	require.Equal(t, "Bearer cred-1", working.header.Get("Authorization"))
	require.Equal(t, "application/json", working.header.Get("Content-Type"))
	require.Equal(t, task.ID, working.task.ID)
	require.Equal(t, "pushed", working.task.ContextID)
	close(f.gate)

	states, done := rcv.until(t, a2a.TaskStateCompleted)
	require.Equal(t, []a2a.TaskState{a2a.TaskStateCompleted}, states, "working is sent once, then completed")
	require.Equal(t, "tok-1", done.header.Get("X-A2A-Notification-Token"))
	require.Len(t, done.task.Artifacts, 1, "the task as tasks/get reads it, its answer included")
	require.Contains(t, done.task.Artifacts[0].Parts[0].(a2a.TextPart).Text, "let go")

	got, err := c.GetTask(ctx, &a2a.TaskQueryParams{ID: task.ID})
	require.NoError(t, err)
	require.Equal(t, a2a.TaskStateCompleted, got.Status.State)
	list, err = c.ListTaskPushConfig(ctx, &a2a.ListTaskPushConfigParams{TaskID: task.ID})
	require.NoError(t, err)
	require.Empty(t, list, "a task's configs end with it")
}

// An input-required task: a config set while it waits is sent that state
// at once; get names a config (or, without an ID, the first), delete
// removes one; the reply's stream ends completed while a config's
// receiver is down, and the receiver that listens gets the completed
// task.
func TestPushSendsInputRequiredAndGetListDeleteKeepTheTasksConfigs(t *testing.T) {
	f := pushFixture(t)
	rcv := newReceiver(t)
	ctx := ctxT(t, 3*time.Minute)
	task := send(t, f, userMessage("asked", `/tool ask_human {"question":"which colour?"}`))
	require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)

	set := func(c a2a.PushConfig) *a2a.TaskPushConfig {
		out, err := f.client.SetTaskPushConfig(ctx, &a2a.TaskPushConfig{TaskID: task.ID, Config: c})
		require.NoError(t, err)
		return out
	}
	set(a2a.PushConfig{ID: "live", URL: rcv.url, Token: "tok-2"})
	set(a2a.PushConfig{ID: "dead", URL: deadURL(t), Auth: &a2a.PushAuthInfo{Schemes: []string{"basic"}, Credentials: "dXNlcjpwdw=="}})
	set(a2a.PushConfig{ID: "gone", URL: deadURL(t)})

	n := rcv.next(t)
	require.Equal(t, a2a.TaskStateInputRequired, n.task.Status.State, "the state when the config was set")
	require.Equal(t, "tok-2", n.header.Get("X-A2A-Notification-Token"))
	require.Contains(t, n.task.Status.Message.Parts[0].(a2a.TextPart).Text, "which colour?")

	first, err := f.client.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigParams{TaskID: task.ID})
	require.NoError(t, err)
	require.Equal(t, "live", first.Config.ID)
	dead, err := f.client.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigParams{TaskID: task.ID, ConfigID: "dead"})
	require.NoError(t, err)
	require.Equal(t, []string{"basic"}, dead.Config.Auth.Schemes)
	require.NoError(t, f.client.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigParams{TaskID: task.ID, ConfigID: "gone"}))
	_, err = f.client.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigParams{TaskID: task.ID, ConfigID: "gone"})
	require.ErrorIs(t, err, a2a.ErrInvalidParams)
	err = f.client.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigParams{TaskID: task.ID, ConfigID: "gone"})
	require.ErrorIs(t, err, a2a.ErrInvalidParams, "a config deleted is gone")
	list, err := f.client.ListTaskPushConfig(ctx, &a2a.ListTaskPushConfigParams{TaskID: task.ID})
	require.NoError(t, err)
	require.Len(t, list, 2)

	reply := userMessage("asked", "blue")
	reply.TaskID = task.ID
	var final *a2a.TaskStatusUpdateEvent
	for ev, err := range f.client.SendStreamingMessage(ctx, &a2a.MessageSendParams{Message: reply}) {
		require.NoError(t, err)
		if s, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && s.Final {
			final = s
		}
	}
	require.NotNil(t, final, "the stream ends, whatever the receivers do")
	require.Equal(t, a2a.TaskStateCompleted, final.Status.State)
	_, done := rcv.until(t, a2a.TaskStateCompleted)
	require.Contains(t, done.task.Artifacts[0].Parts[0].(a2a.TextPart).Text, "blue")
}

// rpcData posts body raw and gives the JSON-RPC error's code and the
// server's reason (error.data.error).
func rpcData(t *testing.T, f *fixture, body string) (int, string) {
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
			Code int `json:"code"`
			Data struct {
				Error string `json:"error"`
			} `json:"data"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(raw, &out), string(raw))
	require.NotNil(t, out.Error, "want a JSON-RPC error, got %s", raw)
	return out.Error.Code, out.Error.Data.Error
}

// A push config the server cannot keep is refused when it is set, with a
// JSON-RPC error saying why: a URL that reaches loopback (but the address
// the fixture allows), a private or link-local address or the cloud
// metadata service, a scheme that is not http(s), a URL with a password,
// an authentication it cannot send; on message/send the refusal comes
// before the message is delivered, so no agent starts.
func TestABlockedOrMalformedPushConfigIsRefusedWhenSetAndNothingIsDelivered(t *testing.T) {
	f := pushFixture(t)
	ctx := ctxT(t, 2*time.Minute)
	task := send(t, f, userMessage("refuser", `/tool ask_human {"question":"wait here?"}`))
	setBody := func(config string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{"taskId":"` + string(task.ID) + `","pushNotificationConfig":` + config + `}}`
	}
	for name, c := range map[string]struct{ config, want string }{
		"loopback not allowed":   {`{"url":"http://127.0.0.2:9/hook"}`, "127.0.0.2 is a loopback address; this server pushes only to public addresses unless its push allow-list"},
		"IPv6 loopback":          {`{"url":"http://[::1]:9/hook"}`, "::1 is a loopback address"},
		"private":                {`{"url":"https://10.1.2.3/hook"}`, "10.1.2.3 is a private address"},
		"metadata":               {`{"url":"http://169.254.169.254/latest/meta-data"}`, "169.254.169.254 is the cloud metadata address"},
		"link-local":             {`{"url":"http://169.254.1.1/"}`, "169.254.1.1 is a link-local address"},
		"unspecified":            {`{"url":"http://0.0.0.0:9/"}`, "0.0.0.0 is the unspecified address"},
		"mapped IPv4 private":    {`{"url":"http://[::ffff:192.168.0.1]/"}`, "is a private address"},
		"no url":                 {`{"token":"t"}`, "url is required"},
		"not http":               {`{"url":"ftp://example.com/hook"}`, "want an absolute http:// or https:// URL"},
		"relative":               {`{"url":"/hook"}`, "want an absolute http:// or https:// URL"},
		"a password":             {`{"url":"https://u:p@example.com/hook"}`, "a URL with a user or password is refused"},
		"an unknown scheme":      {`{"url":"https://example.com/hook","authentication":{"schemes":["Digest"],"credentials":"x"}}`, `this server sends Bearer or Basic`},
		"no credentials":         {`{"url":"https://example.com/hook","authentication":{"schemes":["Bearer"]}}`, "authentication.credentials is empty"},
		"no schemes":             {`{"url":"https://example.com/hook","authentication":{"credentials":"x"}}`, "authentication.schemes is empty"},
		"credentials on 2 lines": {`{"url":"https://example.com/hook","authentication":{"schemes":["Bearer"],"credentials":"a\r\nX-Evil: 1"}}`, "on one line"},
	} {
		t.Run(name, func(t *testing.T) {
			code, why := rpcData(t, f, setBody(c.config))
			require.Equal(t, -32602, code, why)
			require.Contains(t, why, c.want)
		})
	}
	code, why := rpcData(t, f, setBody(`{"url":5}`))
	require.Equal(t, -32700, code, "a config that is not one: %s", why)
	code, _ = rpcData(t, f, `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{"taskId":"refuser:nope","pushNotificationConfig":{"url":"http://127.0.0.1:9/"}}}`)
	require.Equal(t, -32001, code, "a config for no task")

	code, why = rpcData(t, f, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"p1","contextId":"never-started","parts":[{"kind":"text","text":"/say hi"}]},"configuration":{"pushNotificationConfig":{"url":"http://169.254.169.254/"}}}}`)
	require.Equal(t, -32602, code)
	require.Contains(t, why, "cloud metadata")
	_, err := f.agents.Attach(ctx, "never-started")
	require.ErrorIs(t, err, agent.ErrNotFound, "a send refused for its config delivers nothing")

	list, err := f.client.ListTaskPushConfig(ctx, &a2a.ListTaskPushConfigParams{TaskID: task.ID})
	require.NoError(t, err)
	require.Empty(t, list, "no refused config was kept")
	reply := userMessage("refuser", "yes")
	reply.TaskID = task.ID
	require.Equal(t, a2a.TaskStateCompleted, send(t, f, reply).Status.State, "the agent is unharmed")
}
