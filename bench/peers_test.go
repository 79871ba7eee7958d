package bench

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/workflows"
)

// envPeers turns on the peer subject of BenchmarkPeers: Temporal's own
// OpenAI Agents integration on a TypeScript worker (bench/peers, built by
// peerBuild). It needs Node.js and npm; the other subjects run without it.
const envPeers = "TETHER_BENCH_PEERS"

// peerModel is the model activity @temporalio/openai-agents registers.
const peerModel = "invokeModelActivity"

// BenchmarkPeers takes turns of the workload side by side on one server
// (the embedded one, or TETHER_BENCH_ADDRESS's), turn after turn in one
// run: Tether with the tool as an activity and as a fast local tool, the
// bare floor, and with TETHER_BENCH_PEERS=1 the peer, the OpenAI Agents SDK
// on @temporalio/openai-agents with the tool as an activity (activityAsTool).
// Tether and the peer call the same model: the workload's rule served as
// the Chat Completions API on loopback (workloadChat), through Tether's
// OpenAI provider and the OpenAI Agents SDK's; the floor calls it in
// process. It reports each subject's p50 and p99 as BenchmarkTurnLatency
// does, and the ratios of Tether's turns over the peer's.
func BenchmarkPeers(b *testing.B) {
	e := latencyTarget(b)
	model := workloadChat(b)
	queue := e.queue + "-chat"
	prov, err := openai.New(openai.Config{BaseURL: model, APIKey: "bench", DefaultModel: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	w, err := newWorker(e.c, queue, prov, workloadTools(), workflows.Config{})
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Stop)
	chat := latencyServer{env: &env{c: e.c, agents: agent.New(e.c, queue)}, name: e.name, queue: queue, prefix: e.prefix + "chat-"}
	subjects := []*subject{
		chat.tetherSubject(b, "activity-tool", workload.Fetch, 3),
		chat.tetherSubject(b, "local-tool", workload.Read, 2),
		e.floorSubject(b),
	}
	if os.Getenv(envPeers) != "" {
		subjects = append(subjects, e.peerSubject(b, model))
	}
	b.Logf("server %s, task queues %s and %s", e.name, e.queue, queue)
	ctx := context.Background()
	const warmup = 5
	for i := 0; i < warmup+b.N; i++ {
		if i == warmup {
			b.ResetTimer()
		}
		for _, s := range subjects {
			if err := s.turn(ctx, fmt.Sprintf("turn %d", i), i >= warmup); err != nil {
				b.Fatalf("%s turn %d: %v", s.name, i, err)
			}
		}
	}
	b.StopTimer()
	for _, s := range subjects {
		wf, ph, err := s.workflowTurns(ctx, e.c, warmup)
		if err != nil {
			b.Fatal(err)
		}
		s.workflow = wf[warmup:]
		ph.report(b, s.name)
		b.ReportMetric(pctMs(s.client, 50), s.name+"-p50-ms")
		b.ReportMetric(pctMs(s.client, 99), s.name+"-p99-ms")
		b.ReportMetric(pctMs(s.workflow, 50), s.name+"-wf-p50-ms")
		b.ReportMetric(pctMs(s.workflow, 99), s.name+"-wf-p99-ms")
	}
	if len(subjects) == 4 {
		peer := subjects[3]
		for _, s := range subjects[:2] {
			b.ReportMetric(pctMs(s.workflow, 50)/pctMs(peer.workflow, 50), s.name+"/peer-wf-p50")
			b.ReportMetric(pctMs(s.client, 50)/pctMs(peer.client, 50), s.name+"/peer-client-p50")
		}
	}
}

// peerSubject starts the peer's TypeScript worker on a queue of its own
// and one workflow of it; a turn is a signal, waited for on the history
// as the floor's is.
func (e latencyServer) peerSubject(b testing.TB, model string) *subject {
	queue := e.queue + "-peer"
	startPeerWorker(b, e, queue, model)
	ctx := context.Background()
	id := e.prefix + "peer"
	if _, err := e.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, "peerAgent"); err != nil {
		b.Fatal(err)
	}
	done := &historyWatch{c: e.c, id: id}
	return &subject{
		name: "peer-openai-agents", id: id, acts: 3,
		send: func(ctx context.Context, p string) error { return e.c.SignalWorkflow(ctx, id, "", "turn", p) },
		wait: func(ctx context.Context) error { return done.turn(ctx, 3) },
	}
}

// startPeerWorker runs bench/peers' worker until the benchmark ends
// (closing its stdin stops it) and waits for it to poll.
func startPeerWorker(b testing.TB, e latencyServer, queue, model string) {
	b.Helper()
	dir, err := peerBuild()
	if err != nil {
		b.Fatalf("%s: %v", envPeers, err)
	}
	addr, ns := e.name, os.Getenv("TEMPORAL_NAMESPACE")
	if e.srv != nil {
		addr, ns = e.srv.HostPort(), e.srv.Namespace()
	}
	cmd := exec.Command("node", filepath.Join("dist", "worker.js"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+addr, "TEMPORAL_NAMESPACE="+ns, "TASK_QUEUE="+queue,
		"MODEL_BASE_URL="+model, "OPENAI_AGENTS_DISABLE_TRACING=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = stdin.Close()
		stopped := make(chan error, 1)
		go func() { stopped <- cmd.Wait() }()
		select {
		case <-stopped:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-stopped
		}
	})
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "ready" {
				ready <- nil
				_, _ = io.Copy(io.Discard, out)
				return
			}
		}
		ready <- errors.New("the peer's worker ended before it was ready")
	}()
	select {
	case err := <-ready:
		if err != nil {
			b.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		b.Fatal("the peer's worker was not ready within 2 minutes")
	}
}

// chatRequest and chatResponse are the parts of the Chat Completions API
// the workload's rule reads and answers.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role string `json:"role"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// workloadChat serves workload.Model as the Chat Completions API on
// loopback and returns its base URL (…/v1). The rule reads only the last
// message's role and the tools offered, so a conversation that starts with
// a system message (the OpenAI Agents SDK's instructions) is answered as
// Tether's is.
func workloadChat(b testing.TB) string {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, fmt.Sprintf("bad request: %v", err), http.StatusBadRequest)
			return
		}
		in := llm.Request{Messages: make([]eventlog.Message, len(req.Messages))}
		for i, m := range req.Messages {
			in.Messages[i].Role = eventlog.Role(m.Role)
		}
		for _, t := range req.Tools {
			in.Tools = append(in.Tools, llm.ToolSpec{Name: t.Function.Name})
		}
		out, _ := workload.Model{}.Complete(r.Context(), in)
		msg := map[string]any{"role": "assistant", "content": out.Text}
		finish := "stop"
		if len(out.ToolCalls) > 0 {
			calls := make([]chatToolCall, len(out.ToolCalls))
			for i, c := range out.ToolCalls {
				calls[i].ID, calls[i].Type = c.ID, "function"
				calls[i].Function.Name, calls[i].Function.Arguments = c.Name, string(c.Arguments)
			}
			msg["content"], msg["tool_calls"], finish = nil, calls, "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-bench", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
			"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
		})
	}))
	b.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// peerFiles are what building bench/peers needs.
var peerFiles = []string{"package.json", "package-lock.json", "tsconfig.json",
	"src/activities.ts", "src/workflows.ts", "src/worker.ts"}

// peerBuild installs bench/peers' pinned packages (npm ci) and compiles it
// in a directory of the user's cache named by a digest of its files, once
// for each version of them, outside the module's tree (whose go tool
// would read node_modules' Go files), and returns that directory.
func peerBuild() (string, error) {
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("the peer needs Node.js 20.3 or later and npm: %w", err)
	}
	sum := sha256.New()
	for _, f := range peerFiles {
		data, err := os.ReadFile(filepath.Join("peers", f))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(sum, "%s %d\n", f, len(data))
		sum.Write(data)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "tether", fmt.Sprintf("bench-peers-%x", sum.Sum(nil)[:8]))
	if _, err := os.Stat(filepath.Join(dir, "dist", "worker.js")); err == nil {
		return dir, nil
	}
	for _, f := range peerFiles {
		data, err := os.ReadFile(filepath.Join("peers", f))
		if err != nil {
			return "", err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			return "", err
		}
	}
	for _, args := range [][]string{{"ci", "--no-audit", "--no-fund"}, {"run", "build"}} {
		cmd := exec.Command("npm", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("npm %s in %s: %w\n%s", strings.Join(args, " "), dir, err, out)
		}
	}
	return dir, nil
}
