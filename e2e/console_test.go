package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/internal/cli"
	"github.com/tetherdev/tether/projection"
)

// lockedBuffer is written by the console's goroutine and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// `starter console` serves the console over the starter's connection until
// interrupted, then exits 0.
func TestStarterConsoleServesAgentsUntilInterrupted(t *testing.T) {
	e := newEnv(t)
	e.startWorker()
	ctx := ctxT(t, time.Minute)
	r := e.starter(ctx, "start", "--id", "via-console", "--tools", "", "--wait", "/say served")
	requireExit(t, r, 0)

	out := &lockedBuffer{}
	s := cli.Starter{Out: out, Err: out, Env: func(string) string { return "" },
		Dial: func(_ context.Context, o client.Options) (client.Client, error) {
			return e.ts.NewClientWithOptions(client.Options{Namespace: o.Namespace}), nil
		}}
	cctx, stop := context.WithCancel(ctx)
	code := make(chan int, 1)
	go func() {
		code <- s.Run(cctx, []string{"--namespace", e.ts.GetDefaultNamespace(), "console", "--addr", "127.0.0.1:0",
			"--temporal-ui", "http://ui.example:8233"})
	}()
	urlRE := regexp.MustCompile(`Tether console on (http://127\.0\.0\.1:\d+/) \(read-only`)
	var base string
	require.Eventually(t, func() bool {
		m := urlRE.FindStringSubmatch(out.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	}, 30*time.Second, 10*time.Millisecond, out.String())

	resp, err := http.Get(base + "agents/via-console")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(body), "served")
	require.Contains(t, string(body), `href="http://ui.example:8233/namespaces/`+e.ts.GetDefaultNamespace()+`/workflows/via-console"`)

	stop()
	select {
	case c := <-code:
		require.Equal(t, 0, c, out.String())
	case <-ctx.Done():
		t.Fatal("the console did not stop when interrupted")
	}
}

func TestStarterConsoleRefusesAnOpenAddressWithoutAToken(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, 30*time.Second)
	r := e.starter(ctx, "console", "--addr", "0.0.0.0:0")
	requireExit(t, r, 1)
	require.Contains(t, r.err, "serving beyond loopback needs TETHER_CONSOLE_TOKEN")
	r = e.starter(ctx, "console", "extra")
	requireExit(t, r, 2)
	require.True(t, strings.Contains(r.err, "console takes flags only"), r.err)
}

// `worker --dev` serves the console beside the Temporal Web UI, over the
// worker's own client (so it reads encrypted payloads with the worker's
// keys), and links each agent to its workflow in that UI.
func TestDevWorkerServesTheConsoleBesideTheWebUI(t *testing.T) {
	w := startDevWorker(t, []string{"--dev", "--data-dir", t.TempDir(), "--port", "0", "--ui-port", "-1", "--codec-addr", "127.0.0.1:0"},
		map[string]string{codec.EnvKeys: codecKey(t, "k1")})
	require.NotEmpty(t, w.console.URL)
	ctx := ctxT(t, time.Minute)
	h, err := agent.New(w.c, "").Create(ctx, agent.CreateOptions{ID: "dev-console", First: "/say beside the UI"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	resp, err := http.Get(w.console.URL + "/agents/dev-console")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(body), "beside the UI")
	require.Contains(t, string(body), `href="`+w.srv.UIAddress()+`/namespaces/`+w.srv.Namespace()+`/workflows/dev-console"`)
	require.Contains(t, string(body), "read-only", "no token configured")

	history, err := projection.Fetch(ctx, w.c, h.ID, "")
	require.NoError(t, err)
	require.NotContains(t, string(historyBytes(t, history)), "beside the UI", "the history is encrypted")
}
