// Package exampletest runs an example as its users would: the example's
// main package built into a binary and started against the embedded
// Temporal test server, with an agent client beside it. It is for the
// examples' own tests only.
package exampletest

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/server/temporaltest"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/internal/testserver"
)

// Server is a Temporal test server and an agent client on it.
type Server struct {
	TS     *temporaltest.TestServer
	Agents *agent.Client
}

// NewServer starts a test server, stopped when t ends.
func NewServer(t *testing.T) *Server {
	ts := testserver.New(t)
	return &Server{TS: ts, Agents: agent.New(ts.GetDefaultClient(), "")}
}

// Args are the flags that point a worker at s.
func (s *Server) Args() []string {
	return []string{"--address", s.TS.GetFrontendHostPort(), "--namespace", s.TS.GetDefaultNamespace()}
}

// Build compiles the main package in the test's directory.
func Build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "example")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

// Process is a running example binary.
type Process struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	log  strings.Builder
	done chan struct{}
}

// Start runs bin with args and waits until its worker polls its task
// queue (the SDK logs "Started Worker"). It is killed when t ends.
func Start(t *testing.T, bin string, args ...string) *Process {
	t.Helper()
	return StartEnv(t, bin, nil, args...)
}

// StartEnv is Start with env ("KEY=value") added to the test's environment.
func StartEnv(t *testing.T, bin string, env []string, args ...string) *Process {
	t.Helper()
	p := &Process{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
	stderr, err := p.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	started := make(chan struct{})
	go p.read(stderr, started)
	t.Cleanup(func() { p.Kill() })
	select {
	case <-started:
	case <-p.done:
		t.Fatalf("the example exited before its worker started:\n%s", p.Log())
	case <-time.After(time.Minute):
		t.Fatalf("the example's worker did not start in a minute:\n%s", p.Log())
	}
	return p
}

// read keeps the process's log, closing started at the worker's start.
func (p *Process) read(r io.Reader, started chan struct{}) {
	defer close(p.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	once := sync.Once{}
	for sc.Scan() {
		p.mu.Lock()
		p.log.WriteString(sc.Text() + "\n")
		p.mu.Unlock()
		if strings.Contains(sc.Text(), "Started Worker") {
			once.Do(func() { close(started) })
		}
	}
}

// Log is what the process wrote to stderr so far.
func (p *Process) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// Kill ends the process at once (SIGKILL: no stop hooks run) and waits.
func (p *Process) Kill() {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// Stop asks the process to stop (SIGTERM) and returns its exit status.
func (p *Process) Stop(t *testing.T) int {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	<-p.done
	err := p.cmd.Wait()
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode()
	}
	require.NoError(t, err)
	return 0
}

// Results are the tool results in h's log, in order.
func Results(t *testing.T, ctx context.Context, h *agent.Handle) []eventlog.ToolResult {
	t.Helper()
	envs, err := h.Log(ctx)
	require.NoError(t, err)
	events, err := eventlog.DecodeAll(envs)
	require.NoError(t, err)
	var out []eventlog.ToolResult
	for _, e := range events {
		if r, ok := e.(eventlog.ToolResult); ok {
			out = append(out, r)
		}
	}
	return out
}
