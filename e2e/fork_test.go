package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// recordingModel is an OpenAI-compatible chat completions server that
// answers every request "answer to: <last message>" and keeps each
// request's body, by the prompt_cache_key that names the agent that sent it.
type recordingModel struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies map[string][][]byte
}

func newRecordingModel(t *testing.T) *recordingModel {
	m := &recordingModel{bodies: map[string][][]byte{}}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Stream   bool   `json:"stream"`
			Key      string `json:"prompt_cache_key"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
			t.Errorf("bad request %s: %v", body, err)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		m.mu.Lock()
		m.bodies[req.Key] = append(m.bodies[req.Key], body)
		m.mu.Unlock()
		writeChatAnswer(w, req.Stream, "answer to: "+req.Messages[len(req.Messages)-1].Content)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

// writeChatAnswer answers a chat completions request with text, as one
// JSON completion or, for a streaming request, as Server-Sent Events.
func writeChatAnswer(w http.ResponseWriter, stream bool, text string) {
	content, _ := json.Marshal(text)
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, content)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":%s},\"finish_reason\":\"stop\"}]}\n\n", content)
	fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`+"\n\ndata: [DONE]\n\n")
}

// cacheKey is the prompt_cache_key the OpenAI adapter sends for an agent.
func cacheKey(id string) string {
	sum := sha256.Sum256([]byte(id))
	return "tether-" + hex.EncodeToString(sum[:16])
}

// requests are the bodies agent id sent, oldest first.
func (m *recordingModel) requests(id string) [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]byte(nil), m.bodies[cacheKey(id)]...)
}

// asSentBy is body with its agent's cache key replaced by id's: the one
// field of a request that names the agent that sent it.
func asSentBy(body []byte, from, id string) []byte {
	return bytes.ReplaceAll(body, []byte(cacheKey(from)), []byte(cacheKey(id)))
}

// idleAfterTurns are the positions of the log's status/idle events that
// follow a turn's end: its turn boundaries, in order.
func idleAfterTurns(t *testing.T, log []eventlog.Envelope) []int64 {
	var out []int64
	ended := false
	for _, env := range log {
		e, err := eventlog.Decode(env)
		require.NoError(t, err)
		switch e := e.(type) {
		case eventlog.TurnEnd:
			ended = true
		case eventlog.StatusChanged:
			if ended && e.Status == eventlog.StatusIdle {
				out = append(out, env.Seq)
				ended = false
			}
		}
	}
	return out
}

func forkedEvent(t *testing.T, log []eventlog.Envelope) eventlog.SessionForked {
	t.Helper()
	require.NotEmpty(t, log)
	e, err := eventlog.Decode(log[0])
	require.NoError(t, err)
	f, ok := e.(eventlog.SessionForked)
	require.True(t, ok, "a fork's log starts with session/forked, not %s", log[0].Type)
	return f
}

func forkEnv(t *testing.T) (*env, *recordingModel) {
	m := newRecordingModel(t)
	p, err := openai.New(openai.Config{BaseURL: m.srv.URL, APIKey: "sk-test", DefaultModel: "gpt-test"})
	require.NoError(t, err)
	e := newEnv(t)
	e.providers = map[string]activities.Provider{"openai": p}
	e.cfg.MaxRunTurns = 3 // the source's ten turns span four runs
	return e, m
}

// A 10-turn agent whose runs continue as new every three turns, forked at
// each turn boundary with the next prompt appended: each fork's model
// request is the source's request for that turn, byte for byte (but for
// the cache key naming the agent). A fork of a fork goes on the same way;
// the source's log is untouched and its forks are found by TetherForkOf.
func TestAForkAtEachTurnBoundarySendsTheSourcesNextRequestByteForByte(t *testing.T) {
	e, m := forkEnv(t)
	e.startWorker()
	ctx := ctxT(t, 3*time.Minute)
	src, err := e.agents.Create(ctx, agent.CreateOptions{ID: "fork-src",
		Options: signals.AgentOptions{Provider: "openai", SystemPrompt: "be brief", Hooks: []string{}}, First: "q1"})
	require.NoError(t, err)
	_, err = src.WaitIdle(ctx)
	require.NoError(t, err)
	for i := 2; i <= 10; i++ {
		_, err = src.Followup(ctx, fmt.Sprintf("q%d", i))
		require.NoError(t, err)
		_, err = src.WaitIdle(ctx)
		require.NoError(t, err)
	}
	before, err := src.Log(ctx)
	require.NoError(t, err)
	boundaries := idleAfterTurns(t, before)
	require.Len(t, boundaries, 10)
	sent := m.requests(src.ID)
	require.Len(t, sent, 10)

	runs := map[string]bool{}
	var forks []string
	for k := 1; k <= 9; k++ {
		f, err := src.Fork(ctx, boundaries[k-1], agent.AppendMessage(fmt.Sprintf("q%d", k+1)))
		require.NoError(t, err)
		forks = append(forks, f.ID)
		_, err = f.WaitIdle(ctx)
		require.NoError(t, err)
		got := m.requests(f.ID)
		require.Len(t, got, 1, "fork at turn %d", k)
		require.Equal(t, string(sent[k]), string(asSentBy(got[0], f.ID, src.ID)), "fork at turn %d", k)
		log, err := f.Log(ctx)
		require.NoError(t, err)
		fe := forkedEvent(t, log)
		require.Equal(t, boundaries[k-1]+1, log[0].Seq)
		require.Equal(t, src.ID, fe.Source)
		require.Equal(t, boundaries[k-1], fe.At)
		runs[fe.Run] = true
	}
	require.GreaterOrEqual(t, len(runs), 3, "the fork points lie in several runs of the source's chain")

	// A fork of a fork: the fork after turn 5 answered q6; forked again
	// after that turn with q7, it sends the source's seventh request.
	f5, err := e.agents.Attach(ctx, forks[4])
	require.NoError(t, err)
	f5log, err := f5.Log(ctx)
	require.NoError(t, err)
	own := idleAfterTurns(t, f5log)
	require.Len(t, own, 1)
	ff, err := f5.Fork(ctx, own[0], agent.AppendMessage("q7"))
	require.NoError(t, err)
	_, err = ff.WaitIdle(ctx)
	require.NoError(t, err)
	got := m.requests(ff.ID)
	require.Len(t, got, 1)
	require.Equal(t, string(sent[6]), string(asSentBy(got[0], ff.ID, src.ID)))
	fflog, err := ff.Log(ctx)
	require.NoError(t, err)
	require.Equal(t, f5.ID, forkedEvent(t, fflog).Source)

	// A position inside a turn is refused with the nearest valid ones.
	var pe *agent.ForkPositionError
	inside := boundaries[0] + 5 // turn 2's step: its model call
	_, err = src.Fork(ctx, inside)
	require.ErrorAs(t, err, &pe)
	require.GreaterOrEqual(t, pe.Before, boundaries[0])
	require.Less(t, pe.Before, inside)
	require.Greater(t, pe.After, inside)
	require.LessOrEqual(t, pe.After, boundaries[1])

	after, err := src.Log(ctx)
	require.NoError(t, err)
	require.Equal(t, before, after, "forking leaves the source untouched")
	require.Len(t, m.requests(src.ID), 10, "and sends nothing for it")
	require.Eventually(t, func() bool {
		found, err := src.Forks(ctx)
		return err == nil && len(found) == len(forks) && sameSet(found, forks)
	}, 30*time.Second, 200*time.Millisecond, "TetherForkOf finds the source's forks, not the fork's fork")

	// The fork's log, projected from its history alone, is what it says.
	histories, err := projection.FetchChain(ctx, e.c, ff.ID)
	require.NoError(t, err)
	projected, err := projection.FromChain(histories...)
	require.NoError(t, err)
	require.Equal(t, fflog, projected)
	requireChainReplays(ctx, t, e, ff.ID, "fork-first-run")
}

func sameSet(a, b []string) bool {
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// A disposed agent with no worker is forked from its history; the fork
// runs once a worker is back, from where the source was.
func TestAClosedAgentWithNoWorkerIsForkedFromItsHistory(t *testing.T) {
	e, m := forkEnv(t)
	w := e.startWorker()
	ctx := ctxT(t, 2*time.Minute)
	src, err := e.agents.Create(ctx, agent.CreateOptions{ID: "fork-closed",
		Options: signals.AgentOptions{Provider: "openai", Hooks: []string{}}, First: "q1"})
	require.NoError(t, err)
	for i := 2; i <= 4; i++ {
		_, err = src.WaitIdle(ctx)
		require.NoError(t, err)
		_, err = src.Followup(ctx, fmt.Sprintf("q%d", i))
		require.NoError(t, err)
	}
	_, err = src.WaitIdle(ctx)
	require.NoError(t, err)
	log, err := src.Log(ctx)
	require.NoError(t, err)
	boundaries := idleAfterTurns(t, log)
	require.NoError(t, src.Dispose(ctx, "done"))
	require.Eventually(t, func() bool {
		_, err := e.agents.Attach(ctx, src.ID)
		return err != nil
	}, 30*time.Second, 100*time.Millisecond)
	w.Stop()

	f, err := src.Fork(context.WithoutCancel(ctx), boundaries[1], agent.AppendMessage("q3"), agent.WithForkID("fork-closed-2"))
	require.NoError(t, err)
	require.Equal(t, "fork-closed-2", f.ID)
	e.startWorker()
	_, err = f.WaitIdle(ctx)
	require.NoError(t, err)
	got := m.requests(f.ID)
	require.Len(t, got, 1)
	require.Equal(t, string(m.requests(src.ID)[2]), string(asSentBy(got[0], f.ID, src.ID)))

	_, err = src.Fork(ctx, boundaries[1], agent.WithForkID("fork-closed-2"))
	require.ErrorIs(t, err, agent.ErrAlreadyExists)
}
