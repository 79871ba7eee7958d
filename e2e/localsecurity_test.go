package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/fx/codecfx"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
)

// probe is one request an attacker on this machine, or a web page in its
// browser, might send.
type probe struct {
	method, url, host string
	header            map[string]string
	body              string
}

// send returns the status and the body, with any payloads in it decoded
// from their JSON base64 so a leaked plaintext shows.
func (p probe) send(t *testing.T) (int, string) {
	t.Helper()
	req, err := http.NewRequest(p.method, p.url, strings.NewReader(p.body))
	require.NoError(t, err)
	if p.host != "" {
		req.Host = p.host
	}
	for k, v := range p.header {
		req.Header.Set(k, v)
	}
	hc := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var ps commonpb.Payloads
	if json.Unmarshal(b, &ps) == nil {
		for _, p := range ps.GetPayloads() {
			b = append(b, p.GetData()...)
		}
	}
	return resp.StatusCode, string(b)
}

// The default `worker --dev` with encryption and an operator token, as
// started from the command line: each endpoint it serves (codec server,
// console, Web UI, live streams) answers no unauthenticated decode, no
// request naming a foreign Host (DNS rebinding) and no cross-origin write.
func TestTheDevWorkerAnswersNoUnauthenticatedDecodeNoForeignHostAndNoCrossOriginRequest(t *testing.T) {
	dir := t.TempDir()
	uiPort := freePort(t)
	env := map[string]string{codec.EnvKeys: codecKey(t, "k1"), configfx.EnvConsoleToken: "an-operator-token-of-some-length"}
	args := []string{"--dev", "--data-dir", dir, "--port", "0", "--ui-port", strconv.Itoa(uiPort),
		"--codec-addr", "127.0.0.1:0", "--console-addr", "127.0.0.1:0"}
	w, streams := startDevWorkerWithStreams(t, args, env)
	ctx := ctxT(t, time.Minute)
	h, err := agent.New(w.c, "", agent.WithDataConverter(w.dc)).Create(ctx, agent.CreateOptions{ID: "probed", First: "/say the secret is 4711"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	secret := encryptedInput(t, w, "probed")
	uiOrigin := fmt.Sprintf("http://127.0.0.1:%d", uiPort)
	decode := func(base string, header map[string]string) probe {
		return probe{method: http.MethodPost, url: base + "/decode", body: secret, header: header}
	}

	// The codec server: no token, no decode; the drawn token (in the data
	// directory, for the CLI) and the UI's own path from the UI's origin do.
	for name, p := range map[string]probe{
		"no token":                  decode(w.codec.Base, nil),
		"a namespace path":          decode(w.codec.Base+"/default", nil),
		"the UI's origin, no path":  decode(w.codec.Base, map[string]string{"Origin": uiOrigin}),
		"the UI's path, no browser": decode(w.codec.URL, nil),
		"a wrong token":             decode(w.codec.Base, map[string]string{"Authorization": "Bearer guess"}),
	} {
		code, body := p.send(t)
		require.Equal(t, http.StatusUnauthorized, code, name)
		require.NotContains(t, body, "4711", name)
	}
	token, err := os.ReadFile(filepath.Join(dir, codecfx.TokenFile))
	require.NoError(t, err)
	code, body := decode(w.codec.Base, map[string]string{"Authorization": "Bearer " + strings.TrimSpace(string(token))}).send(t)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "4711")
	code, body = decode(w.codec.URL, map[string]string{"Origin": uiOrigin}).send(t)
	require.Equal(t, http.StatusOK, code, "the embedded UI decodes")
	require.Contains(t, body, "4711")

	// Every endpoint: a foreign Host is refused before anything is served,
	// and a foreign page's request is refused.
	endpoints := map[string]probe{
		"codec server": decode(w.codec.URL, map[string]string{"Origin": uiOrigin}),
		"console":      {method: http.MethodGet, url: w.console.URL + "/login"},
		"web UI":       {method: http.MethodGet, url: w.srv.UIAddress() + "/api/v1/settings"},
		"live streams": {method: http.MethodGet, url: streams.BaseURL + "/agents/probed"},
	}
	for name, p := range endpoints {
		rebound := p
		rebound.host = "rebound.evil.example"
		code, body := rebound.send(t)
		require.Equal(t, http.StatusMisdirectedRequest, code, "%s: %s", name, body)
		require.NotContains(t, body, "4711", name)
		require.NotContains(t, body, "/ui-", name)

		foreign := p
		foreign.method = http.MethodPost
		foreign.header = map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
		code, body = foreign.send(t)
		require.Equal(t, http.StatusForbidden, code, "%s: %s", name, body)
		require.NotContains(t, body, "4711", name)
	}

	// The console: with a token every page needs a login, on loopback too,
	// and a login from another page is refused.
	code, _ = probe{method: http.MethodGet, url: w.console.URL + "/agents/probed"}.send(t)
	require.Equal(t, http.StatusSeeOther, code)
	code, _ = probe{method: http.MethodPost, url: w.console.URL + "/login", body: url.Values{"token": {env[configfx.EnvConsoleToken]}}.Encode(),
		header: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "http://127.0.0.1:1", "Sec-Fetch-Site": "same-site"}}.send(t)
	require.Equal(t, http.StatusForbidden, code, "another port's page cannot log in")
}

// startDevWorkerWithStreams is startDevWorker that also returns where the
// worker serves live streams.
func startDevWorkerWithStreams(t *testing.T, args []string, env map[string]string) (*devWorker, activities.HubStreams) {
	t.Helper()
	var streams activities.LiveStreams
	w := startDevWorkerWith(t, args, env, fx.Populate(&streams))
	hs, ok := streams.(activities.HubStreams)
	require.True(t, ok)
	return w, hs
}

// startDevWorkerWith is startDevWorker with extra fx options.
func startDevWorkerWith(t *testing.T, args []string, env map[string]string, extra ...fx.Option) *devWorker {
	t.Helper()
	cfg, err := configfx.Load(args, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	w := &devWorker{}
	opts := append([]fx.Option{tetherfx.Worker(cfg, io.Discard), fx.NopLogger, fx.Populate(&w.c, &w.dc, &w.srv, &w.codec, &w.console)}, extra...)
	w.app = fx.New(opts...)
	require.NoError(t, w.app.Err())
	require.NoError(t, w.app.Start(ctxT(t, time.Minute)))
	t.Cleanup(func() { w.stop(t) })
	return w
}

// encryptedInput is the remote codec protocol's body of the agent's start
// input, as the Web UI would send it to decode.
func encryptedInput(t *testing.T, w *devWorker, id string) string {
	t.Helper()
	hist := w.c.GetWorkflowHistory(ctxT(t, time.Minute), id, "", false, 0)
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
