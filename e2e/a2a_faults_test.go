package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// brokenRemote is an A2A agent on a real HTTP server that serves a true
// card and answers message/send, by the message's text, as a remote
// that fails: "500" with HTTP 500; "garbage" with HTTP 200 and a body
// that is no JSON-RPC; "failed" with its task failed; "flaky" with HTTP
// 503 twice for a message ID, then its task completed.
type brokenRemote struct {
	url   string
	mu    sync.Mutex
	sends map[string][]string // text -> message IDs, one per message/send
}

func serveBrokenRemote(t *testing.T) *brokenRemote {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	br := &brokenRemote{url: "http://" + ln.Addr().String() + "/", sends: map[string][]string{}}
	card := &a2a.AgentCard{Name: "Broken", Description: "Fails in every way it can.", URL: br.url,
		PreferredTransport: a2a.TransportProtocolJSONRPC, ProtocolVersion: "0.3.0", Version: "1",
		Skills: []a2a.AgentSkill{{ID: "fail", Name: "fail", Description: "fails"}}}
	mux := http.NewServeMux()
	mux.Handle("GET /.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	mux.HandleFunc("POST /{$}", br.serve)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return br
}

func (br *brokenRemote) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Message struct {
				ID    string `json:"messageId"`
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Method != "message/send" || len(req.Params.Message.Parts) == 0 {
		http.Error(w, "unexpected request", http.StatusBadRequest)
		return
	}
	text, msg := req.Params.Message.Parts[0].Text, req.Params.Message.ID
	br.mu.Lock()
	br.sends[text] = append(br.sends[text], msg)
	n := len(br.sends[text])
	br.mu.Unlock()
	task := func(state a2a.TaskState, note, answer string) {
		t := &a2a.Task{ID: a2a.TaskID("task-" + text), ContextID: "ctx-" + text,
			Status: a2a.TaskStatus{State: state, Message: &a2a.Message{ID: "s", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.TextPart{Text: note}}}}}
		if answer != "" {
			t.Artifacts = []*a2a.Artifact{{ID: "answer", Parts: a2a.ContentParts{a2a.TextPart{Text: answer}}}}
		}
		res, _ := json.Marshal(t)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, res)
	}
	switch {
	case text == "500":
		http.Error(w, "the remote broke", http.StatusInternalServerError)
	case text == "garbage":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"kind":`))
	case text == "failed":
		task(a2a.TaskStateFailed, "the remote agent broke", "")
	case text == "flaky" && n <= 2:
		http.Error(w, "not yet", http.StatusServiceUnavailable)
	default:
		task(a2a.TaskStateCompleted, "", "answered "+text)
	}
}

// sent are the message IDs of each message/send of text.
func (br *brokenRemote) sent(text string) []string {
	br.mu.Lock()
	defer br.mu.Unlock()
	return append([]string(nil), br.sends[text]...)
}

// A calling agent's five parallel calls of remote A2A agents that fail:
// HTTP 500 on every attempt, a body that is no JSON-RPC, a task the
// remote failed, HTTP 503 twice and then an answer, and a remote that is
// down (its card never fetched). Faults (the 500s, the garbage, the 503s,
// the unreachable remote) are retried as the remote's, with the same
// message ID, never shown to the model while they last: the flaky call's
// only result is its answer, and the others' is, after
// activities.MaxMCPFaults (3) faulted attempts, an error result that says
// the remote could not be reached 3 times, with the last reason. The
// failed task is the remote's answer, an error result at once, sent once.
// The turn completes: nothing wedges.
func TestARemoteA2AAgentThatFailsIsRetriedAsAFaultThenAnErrorResultAndAFailedTaskIsOneAtOnce(t *testing.T) {
	caller := newEnv(t)
	ctx := ctxT(t, 4*time.Minute)
	br := serveBrokenRemote(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := "http://" + ln.Addr().String() + "/"
	require.NoError(t, ln.Close())
	config := filepath.Join(t.TempDir(), "a2a.json")
	data, err := json.Marshal(map[string]any{"agents": map[string]any{"helper": map[string]any{"url": br.url}, "down": map[string]any{"url": down}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(config, data, 0o600))
	startApp(t, caller, "--a2a-config", config)

	texts := []string{"500", "garbage", "failed", "flaky"}
	var script []string
	for _, text := range texts {
		script = append(script, helperCall(t, map[string]string{"message": text}))
	}
	script = append(script, "/tool "+signals.A2AToolName("down")+` {"message":"hello"}`)
	h, err := caller.agents.Create(ctx, agent.CreateOptions{ID: "caller",
		Options: signals.AgentOptions{Tools: []string{"a2a:helper", "a2a:down"}}, First: strings.Join(script, "\n")})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	log, err := h.Log(ctx)
	require.NoError(t, err)
	evs := events(t, log)
	byCall := map[string]eventlog.ToolResult{}
	for _, r := range ofType[eventlog.ToolResult](evs) {
		_, seen := byCall[r.CallID]
		require.False(t, seen, "one result per call: %s", r.CallID)
		byCall[r.CallID] = r
	}
	require.Len(t, byCall, 5)
	result := func(i int) eventlog.ToolResult { return byCall[fmt.Sprintf("call_1_%d", i)] }
	gaveUp := "could not reach what it depends on 3 times in a row, so the call was given up"

	for i, why := range map[int]string{0: "HTTP 500 Internal Server Error", 1: "failed to decode response"} {
		r := result(i)
		require.True(t, r.IsError, r.Content)
		require.Empty(t, r.Outcome, "the tool answered: %s", r.Content)
		require.Contains(t, r.Content, gaveUp)
		require.Contains(t, r.Content, why)
		sent := br.sent(texts[i])
		require.Len(t, sent, 3, "%s: three faulted attempts", texts[i])
		require.Equal(t, []string{sent[0], sent[0], sent[0]}, sent, "every attempt sends the same message")
	}

	failed := result(2)
	require.True(t, failed.IsError)
	require.Equal(t, "A2A agent helper's task task-failed failed: the remote agent broke", failed.Content)
	require.Len(t, br.sent("failed"), 1, "a failed task is an answer, not retried")

	flaky := result(3)
	require.False(t, flaky.IsError, "the faults were retried, not shown: %s", flaky.Content)
	require.Contains(t, flaky.Content, "answered flaky\n\n(A2A agent helper completed task task-flaky;")
	sent := br.sent("flaky")
	require.Len(t, sent, 3)
	require.Equal(t, []string{sent[0], sent[0], sent[0]}, sent)

	unreachable := result(4)
	require.True(t, unreachable.IsError)
	require.Contains(t, unreachable.Content, `tool "a2a__down" `+gaveUp)
	require.Contains(t, unreachable.Content, `fetch the card of A2A agent "down" at `+down)

	ends := ofType[eventlog.TurnEnd](evs)
	require.Len(t, ends, 1)
	require.Equal(t, eventlog.EndCompleted, ends[0].Reason, "the turn ends: no call wedges it")
}
