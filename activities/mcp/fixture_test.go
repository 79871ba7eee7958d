package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/tetherdev/tether/activities/mcp"
)

// serverBin is the test MCP server (testdata/mcpserver), built once.
var serverBin string

func TestMain(m *testing.M) {
	if bin := os.Getenv(workerEnv); bin != "" {
		os.Exit(worker(bin, os.Getenv(workerStateEnv)))
	}
	dir, err := os.MkdirTemp("", "mcpserver")
	if err != nil {
		panic(err)
	}
	serverBin = filepath.Join(dir, "mcpserver")
	if out, err := exec.Command("go", "build", "-o", serverBin, "./testdata/mcpserver").CombinedOutput(); err != nil {
		panic(fmt.Sprintf("build the test MCP server: %v\n%s", err, out))
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// transports runs test once with a stdio server and once with an HTTP one.
func transports(t *testing.T, test func(t *testing.T, f *fixture)) {
	for _, http := range []bool{false, true} {
		name := map[bool]string{false: "stdio", true: "http"}[http]
		t.Run(name, func(t *testing.T) { test(t, newFixture(t, http)) })
	}
}

// fixture is one test MCP server, named "srv", and a Manager for it.
type fixture struct {
	t     *testing.T
	http  bool
	state string   // the server's -state directory
	args  []string // more server flags
	env   map[string]string
	url   string // the HTTP server's, once started
	addr  string
	stop  func()
}

func newFixture(t *testing.T, http bool, args ...string) *fixture {
	f := &fixture{t: t, http: http, state: t.TempDir(), args: args, env: map[string]string{}}
	if http {
		f.start("127.0.0.1:0")
		t.Cleanup(func() { f.stop() })
	}
	return f
}

// entry is the server's config file entry.
func (f *fixture) entry() map[string]any {
	args := append([]string{"-state", f.state}, f.args...)
	if f.http {
		return map[string]any{"url": f.url}
	}
	return map[string]any{"command": serverBin, "args": args}
}

// config parses a config file of the given entries, by server name.
func (f *fixture) config(entries map[string]any) mcp.Config {
	f.t.Helper()
	data, err := json.Marshal(map[string]any{"servers": entries})
	require.NoError(f.t, err)
	c, err := mcp.Parse(data, func(k string) string { return f.env[k] })
	require.NoError(f.t, err)
	return c
}

// manager returns a Manager of the server as "srv", closed by cleanup.
func (f *fixture) manager() *mcp.Manager {
	m := mcp.NewManager(f.config(map[string]any{"srv": f.entry()}), quiet)
	f.t.Cleanup(func() { _ = m.Close() })
	return m
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// activityEnv runs activities as a worker would, logging nothing.
func activityEnv() *testsuite.TestActivityEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(quiet))
	return s.NewTestActivityEnvironment()
}

// start runs the HTTP server on addr and waits for its URL.
func (f *fixture) start(addr string) {
	f.t.Helper()
	args := append([]string{"-http", addr, "-state", f.state}, f.args...)
	cmd := exec.Command(serverBin, args...)
	out, err := cmd.StdoutPipe()
	require.NoError(f.t, err)
	require.NoError(f.t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	f.stop = func() { _ = cmd.Process.Kill(); <-done }
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(f.t, err, "the HTTP server printed no URL")
	f.url = strings.TrimSpace(strings.TrimPrefix(line, "url "))
	f.addr = strings.TrimSuffix(strings.TrimPrefix(f.url, "http://"), "/mcp")
}

// restart starts the HTTP server again on its address after it exited;
// a stdio server is restarted by the next call.
func (f *fixture) restart() {
	if f.http {
		f.stop()
		f.start(f.addr)
	}
}

// lines reads a file the server writes, one entry a line.
func (f *fixture) lines(name string) []string {
	b, err := os.ReadFile(filepath.Join(f.state, name))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(f.t, err)
	return strings.Fields(string(b))
}

func timeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// failingProxy forwards to the test server unless told to fail requests
// with an HTTP status: every request (status), or the next POST (next).
type failingProxy struct {
	status, next atomic.Int32
	proxy        *httputil.ReverseProxy
}

func (p *failingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := p.status.Load()
	if s == 0 && r.Method == http.MethodPost {
		s = p.next.Swap(0)
	}
	if s != 0 {
		http.Error(w, "down", int(s))
		return
	}
	p.proxy.ServeHTTP(w, r)
}

// proxied puts a failingProxy before the HTTP server and returns it with
// a Manager that reaches the server through it as "srv".
func (f *fixture) proxied() (*failingProxy, *mcp.Manager) {
	target, err := url.Parse(f.url)
	require.NoError(f.t, err)
	p := &failingProxy{proxy: httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: target.Host})}
	front := httptest.NewServer(p)
	f.t.Cleanup(front.Close)
	m := mcp.NewManager(f.config(map[string]any{"srv": map[string]any{"url": front.URL + "/mcp"}}), quiet)
	f.t.Cleanup(func() { _ = m.Close() })
	return p, m
}
