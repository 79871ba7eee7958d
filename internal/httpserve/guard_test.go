package httpserve

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx/fxtest"
)

// serveGuarded runs an endpoint answering "ok" behind g, as Run serves
// every endpoint, and returns its base URL.
func serveGuarded(t *testing.T, g Guard) string {
	t.Helper()
	ln, err := Listen("127.0.0.1:0", "the test server", "--test-addr")
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })}
	lc := fxtest.NewLifecycle(t)
	require.NoError(t, Run(lc, slog.New(slog.DiscardHandler), Endpoint{Name: "Test server", Server: srv, Listener: ln, Guard: g}))
	lc.RequireStart()
	t.Cleanup(func() { lc.RequireStop() })
	return "http://" + ln.Addr().String()
}

func send(t *testing.T, method, url, host string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, strings.NewReader(""))
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestAForeignHostIsRefusedSoARebindingPageLearnsNothing(t *testing.T) {
	base := serveGuarded(t, Guard{Hosts: []string{"tether.example.com"}})
	for host, want := range map[string]int{
		"":                        http.StatusOK, // the URL's own 127.0.0.1:port
		"localhost:1234":          http.StatusOK,
		"app.localhost":           http.StatusOK,
		"[::1]:80":                http.StatusOK,
		"10.1.2.3:8280":           http.StatusOK,
		"tether.example.com":      http.StatusOK,
		"TETHER.example.com:443":  http.StatusOK,
		"evil.example":            http.StatusMisdirectedRequest,
		"evil.example:8280":       http.StatusMisdirectedRequest,
		"localhost.evil.example":  http.StatusMisdirectedRequest,
		"tether.example.com.evil": http.StatusMisdirectedRequest,
	} {
		code, body := send(t, http.MethodGet, base, host, nil)
		require.Equal(t, want, code, "Host %q: %s", host, body)
		require.Equal(t, want == http.StatusOK, body == "ok", "Host %q: the handler answers only an allowed host: %q", host, body)
	}
}

func TestACrossOriginWriteOrAForeignPageIsRefused(t *testing.T) {
	base := serveGuarded(t, Guard{Origins: []string{"http://127.0.0.1:8233"}})
	self := "http://" + strings.TrimPrefix(base, "http://")
	cases := []struct {
		name, method string
		header       map[string]string
		want         int
	}{
		{"a client without Origin", http.MethodPost, nil, http.StatusOK},
		{"the page's own origin", http.MethodPost, map[string]string{"Origin": self}, http.StatusOK},
		{"a trusted origin", http.MethodPost, map[string]string{"Origin": "http://127.0.0.1:8233", "Sec-Fetch-Site": "same-site"}, http.StatusOK},
		{"another port of this machine", http.MethodPost, map[string]string{"Origin": "http://127.0.0.1:9999"}, http.StatusForbidden},
		{"a cross-site fetch", http.MethodPost, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"a foreign page's write", http.MethodPost, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"a foreign page's read", http.MethodGet, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"a sandboxed page", http.MethodGet, map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"a read from another port", http.MethodGet, map[string]string{"Origin": "http://127.0.0.1:9999"}, http.StatusOK},
	}
	for _, c := range cases {
		code, body := send(t, c.method, base, "", c.header)
		require.Equal(t, c.want, code, "%s: %s", c.name, body)
	}
}

func TestAMalformedTrustedOriginFailsBeforeServing(t *testing.T) {
	_, err := Guard{Origins: []string{"not an origin"}}.Handler(http.NotFoundHandler())
	require.ErrorContains(t, err, `trusted origin "not an origin"`)
}
