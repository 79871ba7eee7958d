package devserverfx_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	sdklog "go.temporal.io/sdk/log"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/fx/codecfx"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/consolefx"
	"github.com/tetherdev/tether/fx/tetherfx"
	"github.com/tetherdev/tether/internal/devserver"
)

const operatorToken = "an-operator-token-of-some-length"

// sharedWorker is `worker --dev --mutual-tls` with the Web UI, the codec
// server and the console, run in this process as the command line runs it.
type sharedWorker struct {
	c       client.Client
	dc      converter.DataConverter
	srv     *devserver.Server
	codec   codecfx.Endpoint
	console consolefx.Endpoint
	uiPort  int
}

func startSharedWorker(t *testing.T) *sharedWorker {
	t.Helper()
	key := make([]byte, codec.KeySize)
	_, err := rand.Read(key)
	require.NoError(t, err)
	env := map[string]string{configfx.EnvConsoleToken: operatorToken, codec.EnvKeys: "k1:" + base64.StdEncoding.EncodeToString(key)}
	w := &sharedWorker{uiPort: freePort(t)}
	cfg, err := configfx.Load([]string{"--dev", "--mutual-tls", "--data-dir", t.TempDir(), "--port", "0",
		"--ui-port", strconv.Itoa(w.uiPort), "--codec-addr", "127.0.0.1:0", "--console-addr", "127.0.0.1:0"},
		func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	app := fx.New(tetherfx.Worker(cfg, io.Discard), fx.NopLogger, fx.Populate(&w.c, &w.dc, &w.srv, &w.codec, &w.console))
	require.NoError(t, app.Err())
	require.NoError(t, app.Start(testContext(t)))
	t.Cleanup(func() { require.NoError(t, app.Stop(context.Background())) })
	return w
}

// On a shared machine, `worker --dev --mutual-tls` with the Web UI: the
// frontend refuses a plaintext client; the UI, which reaches the frontend
// with the data dir's certificate, answers nothing without a login (its
// API and the codec server's secret path included); after a login with
// the console's token it lists the agents and its codec endpoint decodes;
// and the console asks for a login too.
func TestMutualTLSWorkerServesTheWebUIOnlyAfterALogin(t *testing.T) {
	w := startSharedWorker(t)
	ctx := testContext(t)
	h, err := agent.New(w.c, "", agent.WithDataConverter(w.dc)).Create(ctx, agent.CreateOptions{ID: "shared-agent", First: "/say the secret is 4711"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	quick, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.Error(t, describePlain(quick, w.srv), "a plaintext gRPC client reached the frontend")

	ui := w.srv.UIAddress()
	uiOrigin := fmt.Sprintf("http://127.0.0.1:%d", w.uiPort)
	require.Equal(t, uiOrigin, ui)
	anonymous := &http.Client{Timeout: 30 * time.Second, CheckRedirect: noRedirect}
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, "/"}, {http.MethodGet, "/namespaces/default/workflows"}, {http.MethodGet, "/healthz"},
		{http.MethodGet, "/api/v1/settings"}, {http.MethodGet, "/api/v1/namespaces/default/workflows"},
		{http.MethodGet, "/api/v1/namespaces/default/workflows/shared-agent/history"},
		{http.MethodPost, "/api/v1/namespaces/default/workflows/shared-agent/terminate"},
	} {
		code, body := send(t, anonymous, r.method, ui+r.path, nil)
		require.Equal(t, http.StatusUnauthorized, code, "%s %s: %s", r.method, r.path, body)
		require.NotContains(t, body, "shared-agent", r.path)
		require.NotContains(t, body, "/ui-", "%s hands out the codec server's UI path", r.path)
	}
	code, _ := send(t, anonymous, http.MethodPost, ui+"/_tether/login", url.Values{"token": {"a-guess"}})
	require.Equal(t, http.StatusUnauthorized, code, "a wrong token")
	code, _ = send(t, anonymous, http.MethodGet, w.console.URL+"/agents/shared-agent", nil)
	require.Equal(t, http.StatusSeeOther, code, "the console sends to its login")

	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Timeout: 30 * time.Second, Jar: jar, CheckRedirect: noRedirect}
	code, body := send(t, browser, http.MethodPost, ui+"/_tether/login", url.Values{"token": {operatorToken}, "next": {"/namespaces/default/workflows"}})
	require.Equal(t, http.StatusSeeOther, code, body)
	require.EventuallyWithT(t, func(c *assert.CollectT) { // visibility lags behind the start
		code, body := send(t, browser, http.MethodGet, ui+"/api/v1/namespaces/default/workflows", nil)
		require.Equal(c, http.StatusOK, code, body)
		require.Contains(c, body, "shared-agent")
	}, time.Minute, 100*time.Millisecond)

	code, body = send(t, browser, http.MethodGet, ui+"/api/v1/settings", nil)
	require.Equal(t, http.StatusOK, code, body)
	var settings struct{ Codec struct{ Endpoint string } }
	require.NoError(t, json.Unmarshal([]byte(body), &settings))
	require.Equal(t, w.codec.URL, settings.Codec.Endpoint)
	code, body = decode(t, settings.Codec.Endpoint, uiOrigin, startInput(t, w))
	require.Equal(t, http.StatusOK, code, body)
	var decoded commonpb.Payloads
	require.NoError(t, json.Unmarshal([]byte(body), &decoded))
	require.NotEmpty(t, decoded.GetPayloads())
	require.Contains(t, string(decoded.GetPayloads()[0].GetData()), "4711", "the UI's codec endpoint decodes for the logged-in user")
}

// describePlain asks the frontend for the namespace without TLS, as any
// local process could.
func describePlain(ctx context.Context, s *devserver.Server) error {
	c, err := client.DialContext(ctx, client.Options{HostPort: s.HostPort(), Namespace: s.Namespace(),
		Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: s.Namespace()})
	return err
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// send makes one request, a form when form is set, and returns the status
// and body.
func send(t *testing.T, hc *http.Client, method, target string, form url.Values) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, target, body)
	require.NoError(t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// decode posts payloads to a codec endpoint as the Web UI's page does.
func decode(t *testing.T, endpoint, origin, payloads string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint+"/decode", strings.NewReader(payloads))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", origin)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// startInput is the agent's encrypted start input in the remote codec
// protocol's JSON, as the Web UI sends it to decode.
func startInput(t *testing.T, w *sharedWorker) string {
	t.Helper()
	hist := w.c.GetWorkflowHistory(testContext(t), "shared-agent", "", false, 0)
	require.True(t, hist.HasNext())
	ev, err := hist.Next()
	require.NoError(t, err)
	input := ev.GetWorkflowExecutionStartedEventAttributes().GetInput()
	require.True(t, codec.Encrypted(input.GetPayloads()[0]))
	b, err := json.Marshal(input)
	require.NoError(t, err)
	require.NotContains(t, string(b), "4711")
	return string(b)
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
