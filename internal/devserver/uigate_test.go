package devserver

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const gateToken = "an-operator-token-of-some-length"

// seen is what the gate let through to the UI.
type seen struct{ auth, cookie string }

func testGate(t *testing.T) (*uiGate, *[]seen, *time.Time) {
	t.Helper()
	var got []seen
	now := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	g := newUIGate(gateToken, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, seen{r.Header.Get("Authorization"), r.Header.Get("Cookie")})
		_, _ = w.Write([]byte("the UI"))
	}))
	g.now = func() time.Time { return now }
	return g, &got, &now
}

func serve(g http.Handler, method, target string, body url.Values, header map[string]string) *httptest.ResponseRecorder {
	var req *http.Request
	if body != nil {
		req = httptest.NewRequest(method, target, strings.NewReader(body.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, req)
	return rec
}

func loginCookie(t *testing.T, g http.Handler, next string) string {
	t.Helper()
	rec := serve(g, http.MethodPost, uiLoginPath, url.Values{"token": {gateToken}, "next": {next}}, nil)
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	cookies := rec.Result().Cookies()
	require.Len(t, cookies, 1)
	require.Equal(t, uiCookieName, cookies[0].Name)
	require.True(t, cookies[0].HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, cookies[0].SameSite)
	return cookies[0].Name + "=" + cookies[0].Value
}

func TestTheUIGateRefusesEveryPathWithoutALogin(t *testing.T) {
	g, got, now := testGate(t)
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "/"}, {http.MethodGet, "/healthz"}, {http.MethodGet, "/api/v1/settings"},
		{http.MethodGet, "/api/v1/namespaces/default/workflows"}, {http.MethodGet, "/auth/sso"},
		{http.MethodPost, "/api/v1/namespaces/default/workflows/x/signal/y"},
	} {
		rec := serve(g, tc.method, tc.path, nil, map[string]string{"Cookie": uiCookieName + "=made-up"})
		require.Equal(t, http.StatusUnauthorized, rec.Code, "%s %s", tc.method, tc.path)
		rec = serve(g, tc.method, tc.path, nil, map[string]string{"Authorization": "Bearer guess"})
		require.Equal(t, http.StatusUnauthorized, rec.Code, "%s %s", tc.method, tc.path)
		*now = now.Add(uiFailWindow) // the wrong bearer tokens count as wrong logins
	}
	require.Empty(t, *got)

	rec := serve(g, http.MethodGet, "/namespaces/default/workflows?x=1", nil, map[string]string{"Accept": "text/html"})
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	require.Contains(t, rec.Body.String(), `action="`+uiLoginPath+`"`, "a browser is shown the login form")
	require.Contains(t, rec.Body.String(), `value="/namespaces/default/workflows?x=1"`)
}

func TestTheUIGateLetsALoggedInBrowserThroughAndKeepsItsTokenFromTheUI(t *testing.T) {
	g, got, _ := testGate(t)
	rec := serve(g, http.MethodPost, uiLoginPath, url.Values{"token": {gateToken}, "next": {"/namespaces/default/workflows"}}, nil)
	require.Equal(t, "/namespaces/default/workflows", rec.Header().Get("Location"))
	cookie := loginCookie(t, g, "/")
	rec = serve(g, http.MethodGet, "/api/v1/settings", nil, map[string]string{"Cookie": "_csrf=abc; " + cookie})
	require.Equal(t, http.StatusOK, rec.Code)
	rec = serve(g, http.MethodGet, "/healthz", nil, map[string]string{"Authorization": "Bearer " + gateToken})
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, []seen{{"", "_csrf=abc"}, {"", ""}}, *got, "the UI gets its own cookie, neither the session nor the token")

	rec = serve(g, http.MethodPost, uiLogoutPath, nil, map[string]string{"Cookie": cookie})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	rec = serve(g, http.MethodGet, "/api/v1/settings", nil, map[string]string{"Cookie": cookie})
	require.Equal(t, http.StatusUnauthorized, rec.Code, "a session ends at logout")
}

func TestUIGateSessionsEndWhenIdleOrOld(t *testing.T) {
	g, _, now := testGate(t)
	cookie := loginCookie(t, g, "/")
	*now = now.Add(uiSessionIdle - time.Minute)
	require.Equal(t, http.StatusOK, serve(g, http.MethodGet, "/", nil, map[string]string{"Cookie": cookie}).Code)
	*now = now.Add(uiSessionIdle)
	require.Equal(t, http.StatusUnauthorized, serve(g, http.MethodGet, "/", nil, map[string]string{"Cookie": cookie}).Code, "idle")

	cookie = loginCookie(t, g, "/")
	for range int(uiSessionTTL / (uiSessionIdle / 2)) {
		*now = now.Add(uiSessionIdle / 2)
		serve(g, http.MethodGet, "/", nil, map[string]string{"Cookie": cookie})
	}
	require.Equal(t, http.StatusUnauthorized, serve(g, http.MethodGet, "/", nil, map[string]string{"Cookie": cookie}).Code, "past its lifetime")
}

func TestUIGateLoginRefusesWrongTokensAndThenWaits(t *testing.T) {
	g, _, now := testGate(t)
	for i := range uiMaxFails {
		rec := serve(g, http.MethodPost, uiLoginPath, url.Values{"token": {"guess"}}, nil)
		require.Equal(t, http.StatusUnauthorized, rec.Code, i)
		require.Empty(t, rec.Result().Cookies())
	}
	rec := serve(g, http.MethodPost, uiLoginPath, url.Values{"token": {gateToken}}, nil)
	require.Equal(t, http.StatusTooManyRequests, rec.Code, "even the right token waits")
	require.Equal(t, http.StatusUnauthorized, serve(g, http.MethodGet, "/", nil, map[string]string{"Authorization": "Bearer " + gateToken}).Code,
		"as a bearer header too")
	require.Empty(t, rec.Result().Cookies())
	require.NotEmpty(t, rec.Header().Get("Retry-After"))
	*now = now.Add(uiFailWindow)
	loginCookie(t, g, "/")
}

func TestUIGateRedirectsOnlyWithinTheUIAfterLogin(t *testing.T) {
	g, _, _ := testGate(t)
	for next, want := range map[string]string{
		"/namespaces/default/workflows": "/namespaces/default/workflows",
		"https://evil.example/":         "/", "//evil.example": "/", "/\t/evil.example": "/", "/\\evil.example": "/",
		"": "/", uiLoginPath: "/",
	} {
		rec := serve(g, http.MethodPost, uiLoginPath, url.Values{"token": {gateToken}, "next": {next}}, nil)
		require.Equal(t, want, rec.Header().Get("Location"), "%q", next)
	}
}
