package mcp_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/signals"
)

// authServer is a go-sdk streamable-HTTP server, with one tool echo,
// behind a check of its Authorization header that refuses with refuse
// once it is set.
type authServer struct {
	url     string
	refuse  atomic.Int32 // an HTTP status; 0 lets requests through
	refused atomic.Int32 // requests refused so far
}

func newAuthServer(t *testing.T) *authServer {
	s := sdk.NewServer(&sdk.Implementation{Name: "auth-test", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	a := &authServer{}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status := int(a.refuse.Load())
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			status = http.StatusUnauthorized
		}
		if status != 0 {
			a.refused.Add(1)
			http.Error(w, "token revoked", status)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	a.url = front.URL + "/mcp"
	return a
}

// manager returns a Manager that reaches a as "srv" with its token and
// logs to log.
func (a *authServer) manager(t *testing.T, log *syncBuffer) *mcp.Manager {
	f := &fixture{t: t, env: map[string]string{"SRV_AUTH": "Bearer s3cret"}}
	m := mcp.NewManager(f.config(map[string]any{"srv": map[string]any{
		"url": a.url, "headers_env": map[string]string{"Authorization": "SRV_AUTH"},
	}}), slog.New(slog.NewTextHandler(log, nil)))
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func refusedMessage(status int) string {
	why := map[int]string{401: "the worker is not authorized", 403: "the worker is not allowed to use it"}[status]
	return fmt.Sprintf(`MCP server "srv" refused tool "echo": %s (HTTP %d %s); calling it again will not help`,
		why, status, http.StatusText(status))
}

func TestAServerThatStartsRefusingTheWorkerIsAnErrorResultNotARetriedFault(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			a, log := newAuthServer(t), &syncBuffer{}
			m := a.manager(t, log)
			require.Equal(t, `{"n":1}`, mustRun(t, m, "echo", `{"n":1}`).Content)

			a.refuse.Store(int32(status))
			started := time.Now()
			out := mustRun(t, m, "echo", `{"n":2}`) // a fault would fail the activity
			require.True(t, out.IsError)
			require.Equal(t, refusedMessage(status), out.Content)
			require.Empty(t, out.Outcome, "the server answered")
			require.Less(t, time.Since(started), 5*time.Second, "answered at once, not retried")
			require.EqualValues(t, 1, a.refused.Load(), "asked once")
			require.Contains(t, log.String(), fmt.Sprintf(`level=WARN msg="MCP server refused a call" server=srv tool=echo status=%d`, status))

			a.refuse.Store(0)
			require.Equal(t, `{"n":3}`, mustRun(t, m, "echo", `{"n":3}`).Content, "the session survives a refusal")
		})
	}
}

func TestAServerThatRefusesTheFirstConnectionIsAnErrorResult(t *testing.T) {
	a := newAuthServer(t)
	a.refuse.Store(http.StatusUnauthorized)
	out := mustRun(t, a.manager(t, &syncBuffer{}), "echo", `{}`)
	require.True(t, out.IsError)
	require.Equal(t, refusedMessage(http.StatusUnauthorized), out.Content)
}

func TestAListingTheServerRefusesSaysWhichServerRefusedAndWhy(t *testing.T) {
	a, log := newAuthServer(t), &syncBuffer{}
	m := a.manager(t, log)
	l := &mcp.Lister{Sessions: m, Timeout: time.Minute}
	first := list(t, l, signals.ListToolsInput{Servers: []string{"srv"}}).Servers[0]
	require.Len(t, first.Tools, 1)

	a.refuse.Store(http.StatusForbidden) // the open session is refused
	started := time.Now()
	st := list(t, l, signals.ListToolsInput{Servers: []string{"srv"}}).Servers[0]
	require.Less(t, time.Since(started), 5*time.Second, "no wait for the listing timeout")
	require.Empty(t, st.Tools)
	require.Equal(t, `MCP server "srv" refused the worker: HTTP 403 Forbidden; check the credentials the worker sends it (headers_env)`, st.Error)
	require.Contains(t, log.String(), `level=WARN msg="MCP server not listed" server=srv error="MCP server \"srv\" refused the worker: HTTP 403 Forbidden`)

	st = list(t, &mcp.Lister{Sessions: a.manager(t, &syncBuffer{}), Timeout: time.Minute}, // refused at its first connection
		signals.ListToolsInput{Servers: []string{"srv"}}).Servers[0]
	require.Empty(t, st.Tools)
	require.Equal(t, `MCP server "srv" refused the worker: HTTP 403 Forbidden; check the credentials the worker sends it (headers_env)`, st.Error)
}
