package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// Environment of a worker process started by a test (see TestMain).
const (
	envWorkerAddr = "TETHER_E2E_WORKER_ADDR"
	envWorkerNS   = "TETHER_E2E_WORKER_NAMESPACE"
	envWorkerDir  = "TETHER_E2E_WORKER_DIR"
	envWorkerMode = "TETHER_E2E_WORKER_MODE" // "block": the slow tool never finishes; "paced": it takes 300 ms
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(envWorkerAddr); addr != "" {
		os.Exit(runWorkerProcess(addr))
	}
	if args := os.Getenv(envAppArgs); args != "" {
		os.Exit(runAppProcess(strings.Split(args, "\x1f")))
	}
	code := m.Run()
	removeBuilds()
	os.Exit(code)
}

// runWorkerProcess is the body of a worker subprocess: the test binary
// re-executed, so a test can kill a real worker process with SIGKILL.
func runWorkerProcess(addr string) int {
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: os.Getenv(envWorkerNS)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "dial:", err)
		return 1
	}
	defer c.Close()
	dir := os.Getenv(envWorkerDir)
	mode := os.Getenv(envWorkerMode)
	pace := time.Duration(0)
	if mode == "paced" {
		pace = 300 * time.Millisecond
	}
	reg, err := tools.NewRegistry(append(tools.LoopTools(), journaledTool(dir, "echo", false, 0),
		journaledTool(dir, "slow", mode == "block", pace))...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tools:", err)
		return 1
	}
	reader := activities.NewLogReader(activities.WorkflowLog{Client: c}, 0)
	w := worker.New(c, signals.TaskQueue, worker.Options{StickyScheduleToStartTimeout: configfx.DefaultStickyTimeout})
	workflows.Register(w, workerfx.WorkflowConfig(workflows.Config{ModelHeartbeat: 2 * time.Second, ToolHeartbeat: 2 * time.Second}, nil, reg))
	activities.Register(w,
		&activities.Model{Providers: map[string]activities.Provider{scripted.Name: summaryGate{dir: dir, block: os.Getenv(envWorkerMode) == "block"}},
			DefaultProvider: scripted.Name, Tools: reg, Log: reader, HeartbeatEvery: 500 * time.Millisecond},
		&activities.Tool{Runner: reg, Log: reader, HeartbeatEvery: 500 * time.Millisecond})
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	if err := w.Run(stopChan(stop)); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	return 0
}

func stopChan(c <-chan os.Signal) <-chan any {
	out := make(chan any)
	go func() { <-c; close(out) }()
	return out
}

// journaledTool appends "start KEY" and "done KEY" lines to dir/name.log, so
// a test can count real executions across processes. A blocking tool starts
// and then waits until its process dies; a paced one works for pace.
func journaledTool(dir, name string, block bool, pace time.Duration) tools.Tool {
	return tools.Tool{
		Name: name, Description: "Record the call and answer.",
		Run: func(ctx context.Context, c tools.Call) (tools.Result, error) {
			appendLine(dir, name, "start "+c.IdempotencyKey)
			if block {
				<-ctx.Done()
				select {} // a hard crash is simulated by SIGKILL, not by returning
			}
			select {
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			case <-time.After(pace):
			}
			appendLine(dir, name, "done "+c.IdempotencyKey)
			return tools.Result{Content: name + " ok " + c.IdempotencyKey}, nil
		},
	}
}

func appendLine(dir, name, line string) {
	f, err := os.OpenFile(dir+"/"+name+".log", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		panic(err)
	}
}

func readLines(t *testing.T, dir, name string) []string {
	b, err := os.ReadFile(dir + "/" + name + ".log")
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Fields(strings.ReplaceAll(string(b), "\n", " "))
}

// startWorkerProcess runs the test binary as a worker process.
func (e *env) startWorkerProcess(dir, mode string) *exec.Cmd {
	e.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		envWorkerAddr+"="+e.ts.GetFrontendHostPort(), envWorkerNS+"="+e.ts.GetDefaultNamespace(),
		envWorkerDir+"="+dir, envWorkerMode+"="+mode)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	require.NoError(e.t, cmd.Start())
	e.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
	})
	return cmd
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// summaryGate is the scripted model, except that in a blocking worker a
// compaction summary, or a call whose last message says /hang, starts (and
// says so in dir/summary.log or dir/model.log) and never finishes: the
// process dies in the middle of it.
type summaryGate struct {
	dir   string
	block bool
}

func (g summaryGate) Complete(ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	if len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, "You summarize") {
		appendLine(g.dir, "summary", "start "+activity.GetInfo(ctx).ActivityID)
		if g.block {
			select {}
		}
	}
	// A prompt saying /hang makes the model call hang in a blocking worker
	// (it says so in dir/model.log): the process dies mid-call.
	if last := req.Messages[len(req.Messages)-1]; strings.Contains(last.Content, "/hang") {
		appendLine(g.dir, "model", "start "+activity.GetInfo(ctx).ActivityID)
		if g.block {
			select {}
		}
	}
	return scripted.Provider{}.Complete(ctx, req)
}
