package console

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/internal/forwarded"
)

// loginFrom posts token to /login as a connection from peer, with hdr.
func loginFrom(t *testing.T, s *Server, peer, token string, hdr map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	req.RemoteAddr = peer
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec.Result()
}

// Issue 20: one IPv6 client holds a /64; counted per address it could
// guess 2^64 times as often.
func TestTheLoginLimitCountsAnIPv6ClientByItsSlash64(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true, console: Options{Token: testToken}})
	for i := range loginBurst {
		peer := "[2001:db8:1:2::" + string(rune('a'+i)) + "]:5000"
		require.Equal(t, http.StatusUnauthorized, loginFrom(t, e.srv, peer, "guess", nil).StatusCode)
	}
	require.Equal(t, http.StatusTooManyRequests, loginFrom(t, e.srv, "[2001:db8:1:2:ffff:1:2:3]:6000", "guess", nil).StatusCode,
		"another address of the same /64 is the same client")
	require.Equal(t, http.StatusUnauthorized, loginFrom(t, e.srv, "[2001:db8:1:3::a]:5000", "guess", nil).StatusCode,
		"the next /64 is another client")
	require.Equal(t, http.StatusUnauthorized, loginFrom(t, e.srv, "192.0.2.1:5000", "guess", nil).StatusCode)
}

// X-Forwarded-For names the client only when a trusted proxy sent it:
// behind the proxy each client has its own limit, and no one else can
// pick a fresh address per guess.
func TestForwardedForIsBelievedOnlyFromATrustedProxy(t *testing.T) {
	trusted, err := forwarded.Parse("10.0.0.1, 10.1.0.0/16")
	require.NoError(t, err)
	e := newEnv(t, envOptions{noWorker: true, console: Options{Token: testToken, TrustedProxies: trusted}})
	via := func(xff string) map[string]string { return map[string]string{"X-Forwarded-For": xff} }
	for range loginBurst {
		require.Equal(t, http.StatusUnauthorized, loginFrom(t, e.srv, "10.0.0.1:4000", "guess", via("198.51.100.7")).StatusCode)
	}
	require.Equal(t, http.StatusTooManyRequests, loginFrom(t, e.srv, "10.0.0.1:4001", testToken, via("198.51.100.7")).StatusCode)
	require.Equal(t, http.StatusTooManyRequests, loginFrom(t, e.srv, "10.0.0.1:4002", "guess", via("203.0.113.99, 198.51.100.7")).StatusCode,
		"what the client wrote before the proxy's entry is not believed")
	require.Equal(t, http.StatusTooManyRequests, loginFrom(t, e.srv, "10.1.2.3:4000", "guess", via("198.51.100.7, 10.0.0.1")).StatusCode,
		"through two trusted proxies it is the same client")
	require.Equal(t, http.StatusSeeOther, loginFrom(t, e.srv, "10.0.0.1:4003", testToken, via("198.51.100.8")).StatusCode,
		"another client behind the same proxy is not locked out")

	for i := range loginBurst {
		forged := via("192.0.2." + string(rune('1'+i)))
		require.Equal(t, http.StatusUnauthorized, loginFrom(t, e.srv, "203.0.113.5:4000", "guess", forged).StatusCode)
	}
	require.Equal(t, http.StatusTooManyRequests, loginFrom(t, e.srv, "203.0.113.5:4000", "guess", via("192.0.2.200")).StatusCode,
		"an untrusted peer's X-Forwarded-For is ignored")
}

// Issue 20: behind a proxy that terminates TLS the session cookie is
// Secure; only a trusted proxy's X-Forwarded-Proto says so.
func TestTheSessionCookieIsSecureBehindATLSTerminatingTrustedProxy(t *testing.T) {
	trusted, err := forwarded.Parse("::1")
	require.NoError(t, err)
	e := newEnv(t, envOptions{noWorker: true, console: Options{Token: testToken, TrustedProxies: trusted}})
	cookie := func(peer, proto string) string {
		r := loginFrom(t, e.srv, peer, testToken, map[string]string{"X-Forwarded-Proto": proto, "X-Forwarded-For": "198.51.100.7"})
		require.Equal(t, http.StatusSeeOther, r.StatusCode)
		return r.Header.Get("Set-Cookie")
	}
	require.Contains(t, cookie("[::1]:4000", "https"), "; Secure")
	require.NotContains(t, cookie("[::1]:4000", "http"), "Secure")
	require.NotContains(t, cookie("192.0.2.1:4000", "https"), "Secure", "an untrusted peer's word is not taken")
}
