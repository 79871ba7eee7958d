package login

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
)

// MaxFormBytes bounds a login form's body.
const MaxFormBytes = 4 << 10

// Door is a token login: the operator token, the sessions it opened, the
// limit on wrong tokens, and the name of the cookie that carries a
// session's ID.
type Door struct {
	token    []byte
	cookie   string
	Sessions *Sessions
	Limiter  *Limiter
}

// NewDoor returns a Door for token whose sessions ride in the cookie
// named cookie, limiting wrong tokens as limiter does.
func NewDoor(token, cookie string, limiter *Limiter) *Door {
	return &Door{token: []byte(token), cookie: cookie, Sessions: NewSessions(), Limiter: limiter}
}

// Enabled reports whether a token is set: without one no token is right.
func (d *Door) Enabled() bool { return len(d.token) > 0 }

// Right reports, in constant time, whether got is the token.
func (d *Door) Right(got string) bool {
	return d.Enabled() && subtle.ConstantTimeCompare([]byte(got), d.token) == 1
}

// Bearer checks a token client sent as a bearer header, counted as the
// login form counts, so the header is no faster a way to guess: while the
// client must wait it is not read (wait > 0); a wrong one is spent.
func (d *Door) Bearer(client, got string, now time.Time) (ok bool, wait time.Duration) {
	if wait := d.Limiter.Wait(client, now); wait > 0 {
		return false, wait
	}
	if !d.Right(got) {
		d.Limiter.Fail(client, now)
		return false, 0
	}
	return true, 0
}

// Session is the ID of r's live session, counted used; ok is false
// without one.
func (d *Door) Session(r *http.Request, now time.Time) (id string, ok bool) {
	c, err := r.Cookie(d.cookie)
	if err != nil || !d.Sessions.Live(c.Value, now) {
		return "", false
	}
	return c.Value, true
}

// Attempt is what a login form's POST came to when it did not log in.
type Attempt struct {
	// Next is where the form was to lead (SafeNext).
	Next string
	// Wait, when set, says the client had spent its wrong tokens: no
	// token was read. Otherwise the token was wrong, and spent.
	Wait time.Duration
}

// Login reads a login form's POST from client: its token and next (a
// body of at most MaxFormBytes). The right token replaces r's session
// with a new one (a fresh ID at every login), sets its cookie (HttpOnly,
// SameSite strict, Secure when secure) and redirects to next, and Login
// reports true; otherwise nothing is written, and the caller answers
// what the Attempt says. A next that is one of refused (the login form
// itself) leads to "/".
func (d *Door) Login(w http.ResponseWriter, r *http.Request, client string, now time.Time, secure bool, refused ...string) (bool, Attempt) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxFormBytes)
	next := SafeNext(r.PostFormValue("next"), refused...)
	if wait := d.Limiter.Wait(client, now); wait > 0 {
		return false, Attempt{Next: next, Wait: wait}
	}
	if !d.Right(r.PostFormValue("token")) {
		d.Limiter.Fail(client, now)
		return false, Attempt{Next: next}
	}
	if c, err := r.Cookie(d.cookie); err == nil {
		d.Sessions.End(c.Value)
	}
	http.SetCookie(w, d.sessionCookie(d.Sessions.New(now), int(SessionTTL.Seconds()), secure))
	http.Redirect(w, r, next, http.StatusSeeOther)
	return true, Attempt{}
}

// Logout ends r's session on the server, then drops its cookie; the
// caller redirects.
func (d *Door) Logout(w http.ResponseWriter, r *http.Request, secure bool) {
	if c, err := r.Cookie(d.cookie); err == nil {
		d.Sessions.End(c.Value)
	}
	http.SetCookie(w, d.sessionCookie("", -1, secure))
}

func (d *Door) sessionCookie(value string, maxAge int, secure bool) *http.Cookie {
	return &http.Cookie{Name: d.cookie, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: secure}
}

// SafeNext keeps a post-login redirect on this site: a relative path
// starting with one slash, with no backslash, control or space character
// (browsers drop a tab, so "/\t/evil.example" would leave), no scheme or
// host, and not one of refused. Anything else goes to "/".
func SafeNext(next string, refused ...string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsRune(next, '\\') ||
		strings.IndexFunc(next, func(c rune) bool { return c <= ' ' || c == 0x7f || unicode.IsSpace(c) }) >= 0 {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.HasPrefix(u.Path, "//") {
		return "/"
	}
	for _, p := range refused {
		if u.Path == p {
			return "/"
		}
	}
	return next
}
