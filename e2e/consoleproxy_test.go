package e2e

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/internal/cli"
)

// `starter console` behind a TLS-terminating proxy on the same machine
// (TETHER_TRUSTED_PROXIES=127.0.0.1): the session cookie is Secure when
// the proxy says the browser came over https, and a client the proxy
// forwards is rate limited on its own. A list that is not addresses stops
// the console before it serves.
func TestStarterConsoleBehindATrustedProxyMarksCookiesSecureAndLimitsEachClient(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	token := "an-operator-token-of-some-length"
	vars := map[string]string{"TETHER_CONSOLE_TOKEN": token, "TETHER_TRUSTED_PROXIES": "127.0.0.1"}
	out := &lockedBuffer{}
	s := cli.Starter{Out: out, Err: out, Env: func(k string) string { return vars[k] },
		Dial: func(_ context.Context, o client.Options) (client.Client, error) {
			return e.ts.NewClientWithOptions(client.Options{Namespace: o.Namespace}), nil
		}}
	cctx, stop := context.WithCancel(ctx)
	code := make(chan int, 1)
	go func() {
		code <- s.Run(cctx, []string{"--namespace", e.ts.GetDefaultNamespace(), "console", "--addr", "127.0.0.1:0"})
	}()
	urlRE := regexp.MustCompile(`Tether console on (http://127\.0\.0\.1:\d+/)`)
	var base string
	require.Eventually(t, func() bool {
		if m := urlRE.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
		return base != ""
	}, 30*time.Second, 10*time.Millisecond, out.String())

	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	login := func(tok, client, proto string) *http.Response {
		req, err := http.NewRequest(http.MethodPost, base+"login", strings.NewReader(url.Values{"token": {tok}}.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", client)
		req.Header.Set("X-Forwarded-Proto", proto)
		resp, err := hc.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	resp := login(token, "198.51.100.7", "https")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Set-Cookie"), "; Secure")
	for range 5 {
		require.Equal(t, http.StatusUnauthorized, login("guess", "198.51.100.66", "https").StatusCode)
	}
	require.Equal(t, http.StatusTooManyRequests, login("guess", "198.51.100.66", "https").StatusCode)
	resp = login(token, "198.51.100.7", "http")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, "another client behind the proxy is not locked out")
	require.NotContains(t, resp.Header.Get("Set-Cookie"), "Secure")
	stop()
	require.Equal(t, 0, <-code, out.String())

	vars["TETHER_TRUSTED_PROXIES"] = "the-proxy"
	r := e.starterWithEnv(ctx, vars, "console", "--addr", "127.0.0.1:0")
	requireExit(t, r, 1)
	require.Contains(t, r.err, `TETHER_TRUSTED_PROXIES: trusted proxy "the-proxy": want an IP address or a CIDR prefix`)
}
