package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/internal/login"
	"github.com/tetherdev/tether/signals"
)

func TestWithoutATokenTheConsoleIsReadOnly(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true})
	ctx := ctxT(t, time.Minute)
	e.create(ctx, "ro", "", signals.AgentOptions{})

	r := e.do(http.MethodPost, "/agents/ro/message", url.Values{"kind": {"followup"}, "content": {"hi"}},
		map[string]string{"Accept": "application/json", "Authorization": "Bearer anything-at-all-goes-here"}, nil)
	require.Equal(t, http.StatusForbidden, r.Status)
	require.Equal(t, "read_only", r.JSON(t)["code"])
	require.Equal(t, http.StatusNotFound, e.get("/login").Status)
	root := e.get("/")
	require.Equal(t, http.StatusSeeOther, root.Status)
	require.Equal(t, "/agents", root.Header.Get("Location"))
	page := e.get("/agents/ro")
	require.Contains(t, page.Body, "Read-only: start the console with")
	require.NotContains(t, page.Body, "<form method=\"post\" action=\"/agents/ro/")
}

func TestActionsNeedTheOperatorToken(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true, console: Options{Token: testToken}})
	post := func(hdr map[string]string) response {
		hdr["Accept"] = "application/json"
		return e.do(http.MethodPost, "/agents/nobody/cancel", url.Values{}, hdr, nil)
	}
	r := post(map[string]string{})
	require.Equal(t, http.StatusUnauthorized, r.Status)
	require.Equal(t, "login_required", r.JSON(t)["code"])
	r = post(map[string]string{"Authorization": "Bearer " + testToken + "x"})
	require.Equal(t, http.StatusUnauthorized, r.Status, "a wrong token is no token")
	r = post(map[string]string{"Authorization": "Bearer " + testToken})
	require.Equal(t, http.StatusNotFound, r.Status, "the right one gets through to the agent lookup")

	page := e.get("/agents")
	require.Equal(t, http.StatusSeeOther, page.Status, "with a token, even the list needs a login")
	require.Equal(t, "/login?next=%2Fagents", page.Header.Get("Location"))
}

func TestLoginSetsAStrictHttpOnlyCookieAndActionsAlsoNeedItsCSRFToken(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true, console: Options{Token: testToken}})

	r := e.do(http.MethodPost, "/login", url.Values{"token": {"not it"}}, nil, nil)
	require.Equal(t, http.StatusUnauthorized, r.Status)
	require.Contains(t, r.Body, "wrong token")
	require.Empty(t, r.Header.Values("Set-Cookie"))

	r = e.do(http.MethodPost, "/login", url.Values{"token": {testToken}, "next": {"//evil.example/x"}}, nil, nil)
	require.Equal(t, http.StatusSeeOther, r.Status)
	require.Equal(t, "/", r.Header.Get("Location"), "no redirect off the site")
	cookie := r.Header.Get("Set-Cookie")
	for _, attr := range []string{"tether_console=", "HttpOnly", "SameSite=Strict", "Path=/"} {
		require.Contains(t, cookie, attr)
	}
	require.NotContains(t, cookie, testToken, "the cookie is a session, not the token")

	jar, csrf := e.login()
	act := func(hdr map[string]string, form url.Values) response {
		hdr["Accept"] = "application/json"
		return e.do(http.MethodPost, "/agents/nobody/cancel", form, hdr, jar)
	}
	r = act(map[string]string{}, url.Values{})
	require.Equal(t, http.StatusForbidden, r.Status)
	require.Equal(t, "csrf", r.JSON(t)["code"])
	r = act(map[string]string{}, url.Values{"csrf": {csrf + "x"}})
	require.Equal(t, "csrf", r.JSON(t)["code"])
	r = act(map[string]string{}, url.Values{"csrf": {csrf}})
	require.Equal(t, http.StatusNotFound, r.Status, "a form with its token passes")
	r = act(map[string]string{csrfHeader: csrf}, url.Values{})
	require.Equal(t, http.StatusNotFound, r.Status, "so does the page's script, with the header")
	r = act(map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}, url.Values{"csrf": {csrf}})
	require.Equal(t, http.StatusForbidden, r.Status)
	require.Equal(t, "cross_origin", r.JSON(t)["code"])

	r = e.do(http.MethodPost, "/logout", url.Values{}, nil, jar)
	require.Equal(t, http.StatusSeeOther, r.Status)
	r = act(map[string]string{}, url.Values{"csrf": {csrf}})
	require.Equal(t, http.StatusUnauthorized, r.Status, "logged out")
}

func TestLogoutEndsTheSessionOnTheServerSoACopiedCookieStopsWorking(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true, console: Options{Token: testToken}})
	r := e.do(http.MethodPost, "/login", url.Values{"token": {testToken}}, nil, nil)
	require.Equal(t, http.StatusSeeOther, r.Status)
	cookie := strings.SplitN(r.Header.Get("Set-Cookie"), ";", 2)[0]
	withCookie := map[string]string{"Cookie": cookie}
	require.Equal(t, http.StatusOK, e.do(http.MethodGet, "/agents", nil, withCookie, nil).Status)

	require.Equal(t, http.StatusSeeOther, e.do(http.MethodPost, "/logout", url.Values{}, withCookie, nil).Status)
	r = e.do(http.MethodGet, "/agents", nil, withCookie, nil)
	require.Equal(t, http.StatusSeeOther, r.Status, "the copied cookie no longer reads")
	require.True(t, strings.HasPrefix(r.Header.Get("Location"), "/login"))
}

func TestOnceATokenIsSetEveryPageNeedsItOnLoopbackToo(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true, console: Options{Token: testToken}})
	r := e.get("/agents?status=idle")
	require.Equal(t, http.StatusSeeOther, r.Status)
	require.Equal(t, "/login?next=%2Fagents%3Fstatus%3Didle", r.Header.Get("Location"))
	r = e.do(http.MethodGet, "/agents/x/events", nil, map[string]string{"Accept": "text/event-stream"}, nil)
	require.Equal(t, http.StatusUnauthorized, r.Status)
	require.Equal(t, http.StatusOK, e.get("/login").Status)
	require.Equal(t, http.StatusOK, e.get("/static/console.css").Status)

	r = e.do(http.MethodGet, "/agents", nil, map[string]string{"Authorization": "Bearer " + testToken}, nil)
	require.Equal(t, http.StatusOK, r.Status)
	jar, _ := e.login()
	r = e.do(http.MethodGet, "/agents", nil, nil, jar)
	require.Equal(t, http.StatusOK, r.Status)
}

func TestAConsoleRefusesAGuessableTokenAndAnOpenPublicAddress(t *testing.T) {
	_, err := New(Options{Client: nil})
	require.Error(t, err)
	e := newEnv(t, envOptions{noWorker: true})
	_, err = New(Options{Client: e.c, Token: "short"})
	require.ErrorIs(t, err, ErrShortToken)
	for _, blank := range []string{strings.Repeat(" ", 16), strings.Repeat("\t", 20), " \n \r \t \v \f           "} {
		_, err = New(Options{Client: e.c, Token: blank})
		require.ErrorIs(t, err, ErrBlankToken, "%q", blank)
	}
	_, err = New(Options{Client: e.c, LoginToRead: true})
	require.ErrorContains(t, err, EnvToken)

	for addr, loop := range map[string]bool{"127.0.0.1:8280": true, "[::1]:1": true, "localhost:8280": true,
		"0.0.0.0:8280": false, ":8280": false, "10.1.2.3:80": false} {
		require.Equal(t, loop, Loopback(addr), addr)
		err := CheckAddr(addr, "")
		if loop {
			require.NoError(t, err, addr)
		} else {
			require.ErrorContains(t, err, EnvToken, addr)
			require.NoError(t, CheckAddr(addr, testToken))
		}
	}
}

func TestPagesForbidInlineScriptsAndFraming(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true})
	r := e.get("/agents")
	csp := r.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "img-src 'self' data:"} {
		require.Contains(t, csp, want)
	}
	require.False(t, strings.Contains(csp, "unsafe-inline"))
	require.Equal(t, "DENY", r.Header.Get("X-Frame-Options"))
}

func TestASessionEndsAfterEightHoursAnHourUnusedOrWhenTheConsoleRestarts(t *testing.T) {
	a, err := newAuth(testToken, false)
	require.NoError(t, err)
	now := time.Now()
	s := a.door.Sessions.New(now)
	for at := time.Duration(0); at < login.SessionTTL; at += login.SessionIdle - time.Minute {
		require.True(t, a.door.Sessions.Live(s, now.Add(at)), "used within the hour, it lasts: %s", at)
	}
	require.False(t, a.door.Sessions.Live(s, now.Add(login.SessionTTL)), "expired however used")

	idle := a.door.Sessions.New(now)
	require.False(t, a.door.Sessions.Live(idle, now.Add(login.SessionIdle)), "an hour unused ends it")
	require.False(t, a.door.Sessions.Live(idle, now), "and it stays ended")

	fresh := a.door.Sessions.New(now)
	restarted, err := newAuth(testToken, false)
	require.NoError(t, err)
	require.False(t, restarted.door.Sessions.Live(fresh, now), "a new process knows no session")
	require.False(t, a.door.Sessions.Live(fresh+"x", now), "tampered")
	require.Equal(t, 8*time.Hour, login.SessionTTL)
}

func TestWrongTokensFromOneAddressAreRateLimitedWithRetryAfter(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true, console: Options{Token: testToken}})
	clock := time.Now()
	e.srv.auth.now = func() time.Time { return clock }
	for i := range loginBurst {
		r := e.do(http.MethodPost, "/login", url.Values{"token": {"guess"}}, nil, nil)
		require.Equal(t, http.StatusUnauthorized, r.Status, "guess %d", i)
	}
	r := e.do(http.MethodPost, "/login", url.Values{"token": {testToken}}, nil, nil)
	require.Equal(t, http.StatusTooManyRequests, r.Status, "even the right token waits: a guesser learns nothing")
	require.Equal(t, "20", r.Header.Get("Retry-After"))
	require.Empty(t, r.Header.Values("Set-Cookie"))
	r = e.do(http.MethodGet, "/agents", nil, map[string]string{"Authorization": "Bearer guess", "Accept": "application/json"}, nil)
	require.Equal(t, http.StatusTooManyRequests, r.Status, "a bearer header is limited as well")
	require.Equal(t, "too_many", r.JSON(t)["code"])

	clock = clock.Add(loginRefill)
	r = e.do(http.MethodPost, "/login", url.Values{"token": {testToken}}, nil, nil)
	require.Equal(t, http.StatusSeeOther, r.Status, "after the wait, one more try")
}

func TestLoginRedirectsOnlyToThisSitesPaths(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true, console: Options{Token: testToken}})
	for next, want := range map[string]string{
		"/agents/a1?all=1":     "/agents/a1?all=1",
		"/\t/evil.example":     "/",
		"/\n/evil.example":     "/",
		"/ /evil.example":      "/",
		"//evil.example":       "/",
		"/\\evil.example":      "/",
		"/agents\\..\\x":       "/",
		"https://evil.example": "/",
		"evil.example":         "/",
		"":                     "/",
		"/%2F/evil.example":    "/", // decoded, it starts with two slashes
	} {
		r := e.do(http.MethodPost, "/login", url.Values{"token": {testToken}, "next": {next}}, nil, nil)
		require.Equal(t, http.StatusSeeOther, r.Status, "%q", next)
		require.Equal(t, want, r.Header.Get("Location"), "%q", next)
	}
	page := e.get("/login?next=/%09/evil.example")
	require.Contains(t, page.Body, `name="next" value="/"`)
}

func TestAMalformedAgentIDIsABadRequestWithAPlainSentence(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true})
	for _, path := range []string{"/agents/%00", "/agents/a%01b", "/agents/%ff%fe", "/agents/" + strings.Repeat("x", 1001), "/agents/%00/events"} {
		r := e.get(path)
		require.Equal(t, http.StatusBadRequest, r.Status, path)
		require.Contains(t, r.Body, "that is not an agent ID", path)
	}
	r := e.do(http.MethodPost, "/agents/%00/cancel", url.Values{}, map[string]string{"Accept": "application/json"}, nil)
	require.Equal(t, http.StatusBadRequest, r.Status)
	require.Equal(t, "bad_id", r.JSON(t)["code"])
}

func TestATemporalFailureShowsNoServiceText(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true})
	e.ts.Stop()
	r := e.do(http.MethodGet, "/agents/a1", nil, map[string]string{"Accept": "application/json"}, nil)
	require.Equal(t, http.StatusBadGateway, r.Status)
	require.Equal(t, errTemporal.Error(), r.JSON(t)["error"])
}

func TestTheDoneBannerShowsOnlyActionsTheConsoleDid(t *testing.T) {
	for key, want := range map[string]string{"cancel": "cancel", "followup": "followup", "approve": "approve", "start": "start",
		"Your token was rotated: log in at evil.example": "", "<b>": ""} {
		require.Equal(t, want, doneText(key), key)
	}
}
