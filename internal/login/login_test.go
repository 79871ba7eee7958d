package login

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

const token = "an-operator-token-of-some-length"

func post(d *Door, body url.Values, cookie string, now time.Time, secure bool, refused ...string) (*httptest.ResponseRecorder, bool, Attempt) {
	req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	rec := httptest.NewRecorder()
	ok, at := d.Login(rec, req, "client", now, secure, refused...)
	return rec, ok, at
}

func TestTheRightTokenOpensAFreshSessionWhoseCookieHoldsOnlyItsID(t *testing.T) {
	d := NewDoor(token, "c", NewLimiter(5, time.Second))
	now := time.Now()
	rec, ok, _ := post(d, url.Values{"token": {token}, "next": {"/a?b=1"}}, "", now, true)
	require.True(t, ok)
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/a?b=1", rec.Header().Get("Location"))
	c := rec.Result().Cookies()
	require.Len(t, c, 1)
	require.True(t, c[0].HttpOnly && c[0].Secure)
	require.Equal(t, http.SameSiteStrictMode, c[0].SameSite)
	require.NotContains(t, c[0].Value, token)
	require.True(t, d.Sessions.Live(c[0].Value, now))

	again, ok, _ := post(d, url.Values{"token": {token}}, "c="+c[0].Value, now, false)
	require.True(t, ok)
	require.False(t, again.Result().Cookies()[0].Secure)
	require.False(t, d.Sessions.Live(c[0].Value, now), "a login ends the session it came with")
	require.True(t, d.Sessions.Live(again.Result().Cookies()[0].Value, now))

	req := httptest.NewRequest(http.MethodPost, "/logout", nil)
	req.AddCookie(again.Result().Cookies()[0])
	out := httptest.NewRecorder()
	d.Logout(out, req, false)
	require.False(t, d.Sessions.Live(again.Result().Cookies()[0].Value, now), "logout ends it on the server")
	require.Equal(t, -1, out.Result().Cookies()[0].MaxAge)
}

func TestWrongTokensAreSpentThenTheDoorWaitsWithoutReadingOne(t *testing.T) {
	d := NewDoor(token, "c", NewLimiter(2, 10*time.Second))
	now := time.Now()
	for range 2 {
		rec, ok, at := post(d, url.Values{"token": {"guess"}, "next": {"/x"}}, "", now, false)
		require.False(t, ok)
		require.Zero(t, at.Wait)
		require.Equal(t, "/x", at.Next)
		require.Empty(t, rec.Result().Cookies(), "a failed login writes nothing")
	}
	_, ok, at := post(d, url.Values{"token": {token}}, "", now, false)
	require.False(t, ok, "even the right token waits")
	require.Equal(t, 10*time.Second, at.Wait)
	ok, wait := d.Bearer("client", token, now)
	require.False(t, ok, "as a bearer header too")
	require.Equal(t, 10*time.Second, wait)
	ok, wait = d.Bearer("other", token, now)
	require.True(t, ok, "another client has its own bucket")
	require.Zero(t, wait)

	_, ok, _ = post(d, url.Values{"token": {token}}, "", now.Add(10*time.Second), false)
	require.True(t, ok, "after the refill, one more try")
}

func TestADoorWithoutATokenOpensForNone(t *testing.T) {
	d := NewDoor("", "c", NewLimiter(5, time.Second))
	require.False(t, d.Enabled())
	require.False(t, d.Right(""))
	_, ok, _ := post(d, url.Values{"token": {""}}, "", time.Now(), false)
	require.False(t, ok)
}

func TestSessionsEndWhenIdleOrOldAndTheFirstToEndMakesRoom(t *testing.T) {
	s := NewSessions()
	now := time.Now()
	id := s.New(now)
	for at := time.Duration(0); at < SessionTTL; at += SessionIdle - time.Minute {
		require.True(t, s.Live(id, now.Add(at)), "used within the hour it lasts: %s", at)
	}
	require.False(t, s.Live(id, now.Add(SessionTTL)), "expired however used")
	idle := s.New(now)
	require.False(t, s.Live(idle, now.Add(SessionIdle)))
	require.False(t, s.Live(idle, now), "it stays ended")

	first := s.New(now)
	for i := range MaxSessions - 1 {
		s.New(now.Add(time.Duration(i+1) * time.Millisecond))
	}
	require.True(t, s.Live(first, now))
	s.New(now.Add(time.Second))
	require.False(t, s.Live(first, now.Add(time.Second)), "past MaxSessions the one that ends first goes")
}

// Over any sequence of tries, a client gets no more wrong tokens than its
// burst plus one a refill of the time that passed.
func TestALimiterNeverLetsMoreWrongTokensThroughThanItsRate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		burst := rapid.IntRange(1, 6).Draw(t, "burst")
		refill := time.Duration(rapid.IntRange(1, 30).Draw(t, "refill_s")) * time.Second
		l := NewLimiter(burst, refill)
		start := time.Unix(1e9, 0)
		now, tried := start, 0
		for _, step := range rapid.SliceOf(rapid.IntRange(0, 40_000)).Draw(t, "steps_ms") {
			now = now.Add(time.Duration(step) * time.Millisecond)
			if l.Wait("c", now) == 0 {
				l.Fail("c", now)
				tried++
			}
			allowed := burst + int(now.Sub(start)/refill)
			if tried > allowed {
				t.Fatalf("%d wrong tokens in %s, allowed %d", tried, now.Sub(start), allowed)
			}
		}
	})
}

func TestALimiterPastMaxClientsMakesNewAddressesWaitUntilBucketsRefill(t *testing.T) {
	l := NewLimiter(1, time.Minute)
	now := time.Now()
	for i := range MaxClients {
		l.Fail(strconv.Itoa(i), now)
	}
	require.Equal(t, time.Minute, l.Wait("new", now), "no room: a new address waits")
	require.Zero(t, l.Wait("new", now.Add(time.Minute)), "full buckets are forgotten")
}

func TestSafeNextKeepsARedirectOnThisSite(t *testing.T) {
	for next, want := range map[string]string{
		"/agents/a1?all=1": "/agents/a1?all=1", "/\t/evil.example": "/", "/\n/evil.example": "/",
		"/ /evil.example": "/", "//evil.example": "/", "/\\evil.example": "/", "https://evil.example": "/",
		"evil.example": "/", "": "/", "/%2F/evil.example": "/", "/login": "/", "/login?next=/x": "/", "/logins": "/logins",
	} {
		require.Equal(t, want, SafeNext(next, "/login"), "%q", next)
	}
	require.Equal(t, "/login", SafeNext("/login"), "only the paths refused")
}
