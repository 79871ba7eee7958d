package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
	"github.com/tetherdev/tether/internal/a2aserver"
	"github.com/tetherdev/tether/signals"
)

// envAppArgs holds the worker flags of a worker process that runs the
// real worker app (tetherfx), separated by \x1f.
const envAppArgs = "TETHER_E2E_APP_ARGS"

func runAppProcess(args []string) int {
	cfg, err := configfx.Load(args, os.Getenv, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "config:", err)
		return 2
	}
	return tetherfx.Run(cfg, os.Stderr)
}

// startApp runs `worker ARGS` (the real app, scripted model) as a process
// a test can SIGKILL.
func startApp(t *testing.T, e *env, extra ...string) *exec.Cmd {
	t.Helper()
	args := append([]string{"--address", e.ts.GetFrontendHostPort(), "--namespace", e.ts.GetDefaultNamespace(),
		"--heartbeat-timeout", "3s", "--heartbeat-interval", "500ms", "--sticky-timeout", "1s"}, extra...)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envAppArgs+"="+strings.Join(args, "\x1f"))
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { kill(cmd) })
	return cmd
}

func kill(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_, _ = cmd.Process.Wait()
}

// rpcLog records the JSON-RPC calls a remote A2A server receives.
type rpcLog struct {
	mu    sync.Mutex
	calls []rpcCall
}

type rpcCall struct {
	Method string
	Params json.RawMessage
}

func (l *rpcLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			var c rpcCall
			_ = json.Unmarshal(body, &c)
			l.mu.Lock()
			l.calls = append(l.calls, c)
			l.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})
}

// methods are the methods received from call i on.
func (l *rpcLog) methods(from int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, c := range l.calls[min(from, len(l.calls)):] {
		out = append(out, c.Method)
	}
	return out
}

func (l *rpcLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.calls)
}

// serveA2A serves cluster e's agents over A2A (internal/a2aserver's Go
// API, as `starter a2a` does) on loopback, one profile "helper" with the
// given tools and approval policy.
func serveA2A(t *testing.T, e *env, opts signals.AgentOptions) (string, *rpcLog) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String() + "/"
	h, err := a2aserver.New(a2aserver.Options{Agents: e.agents, BaseURL: base,
		Profiles: []a2aserver.Profile{{Name: "helper", Description: "A helper that waits and computes.", Options: opts}}})
	require.NoError(t, err)
	rec := &rpcLog{}
	srv := &http.Server{Handler: rec.wrap(h), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return base, rec
}

func writeA2AConfig(t *testing.T, url string) string {
	path := filepath.Join(t.TempDir(), "a2a.json")
	data, err := json.Marshal(map[string]any{"agents": map[string]any{"helper": map[string]any{"url": url, "timeout": "2m"}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

// toolCall is the scripted model's directive to call the helper.
func helperCall(t *testing.T, args map[string]string) string {
	js, err := json.Marshal(args)
	require.NoError(t, err)
	return "/tool " + signals.A2AToolName("helper") + " " + string(js)
}

// Two clusters, each with its own server and worker process: an agent on
// the first calls an agent of the second as the tool a2a:helper. The
// calling worker is killed with SIGKILL while the remote task works, and
// then the remote worker: the remote task runs once (one message/send,
// one message in the remote agent's log, its wait tool called once), the
// restarted caller resumes that task (tasks/resubscribe or tasks/get, no
// second send), and the call completes with the remote's answer once the
// remote worker is back.
func TestARemoteA2AAgentAsAToolSurvivesAKillOfEitherWorkerAndRunsItsTaskOnce(t *testing.T) {
	remote, caller := newEnv(t), newEnv(t)
	ctx := ctxT(t, 4*time.Minute)
	url, rec := serveA2A(t, remote, signals.AgentOptions{Tools: []string{"wait"}})
	remoteWorker := startApp(t, remote)
	config := writeA2AConfig(t, url)
	callerWorker := startApp(t, caller, "--a2a-config", config)

	h, err := caller.agents.Create(ctx, agent.CreateOptions{ID: "caller",
		Options: signals.AgentOptions{Tools: []string{"a2a:helper"}},
		First:   helperCall(t, map[string]string{"message": `/tool wait {"seconds": 40}`})})
	require.NoError(t, err)

	// The remote agent waits; the caller recorded the remote task in its
	// call's heartbeat.
	waitFor(t, time.Minute, "the calling activity to record the remote task", func() bool {
		d, err := caller.c.DescribeWorkflowExecution(ctx, h.ID, "")
		if err != nil {
			return false
		}
		for _, pa := range d.GetPendingActivities() {
			for _, p := range pa.GetHeartbeatDetails().GetPayloads() {
				if bytes.Contains(p.GetData(), []byte(`"checkpoint"`)) && bytes.Contains(p.GetData(), []byte(`"task"`)) {
					return true
				}
			}
		}
		return false
	})
	require.Equal(t, []string{"message/send"}, slices.DeleteFunc(rec.methods(0), func(m string) bool { return m != "message/send" }))
	remoteID := remoteAgent(t, rec)
	rh, err := remote.agents.Attach(ctx, remoteID)
	require.NoError(t, err)
	waitFor(t, time.Minute, "the remote agent's wait to start", func() bool {
		log, err := rh.Log(ctx)
		return err == nil && len(toolCalls(t, log, "wait")) == 1
	})

	kill(callerWorker)
	before := rec.len()
	startApp(t, caller, "--a2a-config", config)
	waitFor(t, time.Minute, "the restarted caller to follow the same task", func() bool {
		ms := rec.methods(before)
		return slices.Contains(ms, "tasks/resubscribe") || slices.Contains(ms, "tasks/get")
	})

	kill(remoteWorker)
	// With its worker gone, the remote server cannot read the task (its
	// log query has no worker to answer), and the caller keeps asking.
	afterKill := rec.len()
	waitFor(t, time.Minute, "the caller to keep following while the remote worker is down", func() bool {
		return rec.len() >= afterKill+2
	})
	startApp(t, remote)

	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	results := ofType[eventlog.ToolResult](events(t, log))
	require.Len(t, results, 1)
	require.False(t, results[0].IsError, results[0].Content)
	require.Contains(t, results[0].Content, "A2A agent helper completed task "+remoteID+":")
	require.Contains(t, results[0].Content, `context_id "`+remoteID+`"`)

	require.NotContains(t, rec.methods(before), "message/send", "the restarted caller sent nothing again")
	sends := slices.DeleteFunc(rec.methods(0), func(m string) bool { return m != "message/send" })
	require.Len(t, sends, 1, "one message/send in all")
	rlog, err := rh.Log(ctx)
	require.NoError(t, err)
	revs := events(t, rlog)
	require.Len(t, ofType[eventlog.InboxInserted](revs), 1, "the remote agent got the message once")
	require.Len(t, toolCalls(t, rlog, "wait"), 1, "the remote task ran once")
	require.Contains(t, results[0].Content, lastAnswer(revs))
}

// remoteAgent is the context (the remote agent's ID) of the first message
// the server received.
func remoteAgent(t *testing.T, rec *rpcLog) string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, c := range rec.calls {
		if c.Method == "message/send" {
			var p struct {
				Message struct {
					ContextID string `json:"contextId"`
				} `json:"message"`
			}
			require.NoError(t, json.Unmarshal(c.Params, &p))
			require.NotEmpty(t, p.Message.ContextID)
			return p.Message.ContextID
		}
	}
	t.Fatal("no message/send")
	return ""
}

func toolCalls(t *testing.T, log []eventlog.Envelope, name string) []eventlog.ToolCall {
	return slices.DeleteFunc(ofType[eventlog.ToolCall](events(t, log)), func(c eventlog.ToolCall) bool { return c.Name != name })
}

func lastAnswer(evs []eventlog.Event) string {
	answers := slices.DeleteFunc(ofType[eventlog.AssistantMessage](evs), func(m eventlog.AssistantMessage) bool { return m.Text == "" })
	if len(answers) == 0 {
		return "\x00none"
	}
	return answers[len(answers)-1].Text
}
