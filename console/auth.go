package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/tetherdev/tether/internal/forwarded"
)

// Session cookie and form field names, and how long a login lasts.
const (
	cookieName = "tether_console"
	csrfField  = "csrf"
	csrfHeader = "X-CSRF-Token"
	// sessionTTL bounds a login; sessionIdle ends one unused this long.
	sessionTTL  = 8 * time.Hour
	sessionIdle = time.Hour
	// maxSessions bounds the sessions held; a login beyond it ends the
	// oldest.
	maxSessions = 1024
)

var (
	errReadOnly    = errors.New("the console is read-only: start it with " + EnvToken + " set to act on agents")
	errLogin       = errors.New("log in with the operator token to do this")
	errBadToken    = errors.New("wrong token")
	errCSRF        = errors.New("the form is stale or came from elsewhere: reload the page and try again")
	errCrossOrigin = errors.New("cross-origin request refused")
	errTooMany     = errors.New("too many wrong tokens from your address: wait and try again")
)

// auth decides who may read and who may act. Sessions live in this
// process: a cookie holds a random session ID, which logout and expiry
// delete, so a copied cookie stops working when its session ends, and a
// restart logs everyone out; the token itself never leaves the login form.
// Wrong tokens (at login or as a bearer header) are rate limited per
// client address.
type auth struct {
	token       []byte
	key         []byte // MACs the CSRF token of a session
	loginToRead bool
	now         func() time.Time
	limiter     *limiter

	mu       sync.Mutex
	sessions map[string]sessionTimes
}

// sessionTimes are when a session ends at the latest and when it was last
// used.
type sessionTimes struct{ expires, seen time.Time }

// newAuth: once a token is configured every page needs a login; without
// one the console is read-only and open (loginToRead then needs a token,
// which New checks).
func newAuth(token string, loginToRead bool) (*auth, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return &auth{token: []byte(token), key: key, loginToRead: loginToRead || token != "", now: time.Now,
		limiter: newLimiter(), sessions: map[string]sessionTimes{}}, nil
}

// enabled reports whether an operator token is configured.
func (a *auth) enabled() bool { return len(a.token) > 0 }

// who says how r is authenticated: by bearer header, by cookie, or not.
type who int

const (
	anonymous who = iota
	byCookie
	byBearer
)

func (a *auth) who(r *http.Request) who {
	if !a.enabled() {
		return anonymous
	}
	if h, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		if a.rightToken(h) {
			return byBearer
		}
		return anonymous
	}
	if c, err := r.Cookie(cookieName); err == nil && a.validSession(c.Value, a.now()) {
		return byCookie
	}
	return anonymous
}

func (a *auth) rightToken(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), a.token) == 1
}

func (a *auth) mac(parts ...string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(strings.Join(parts, "\x00")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// newSession starts a session and returns its ID, the cookie's value.
func (a *auth) newSession(now time.Time) string {
	id := rand.Text() + rand.Text()
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, t := range a.sessions {
		if !a.live(t, now) {
			delete(a.sessions, k)
		}
	}
	for len(a.sessions) >= maxSessions {
		delete(a.sessions, a.oldestLocked())
	}
	a.sessions[id] = sessionTimes{expires: now.Add(sessionTTL), seen: now}
	return id
}

func (a *auth) oldestLocked() string {
	var oldest string
	var at time.Time
	for k, t := range a.sessions {
		if oldest == "" || t.expires.Before(at) {
			oldest, at = k, t.expires
		}
	}
	return oldest
}

func (a *auth) live(t sessionTimes, now time.Time) bool {
	return now.Before(t.expires) && now.Sub(t.seen) < sessionIdle
}

// validSession reports whether id is a live session, and counts it used.
func (a *auth) validSession(id string, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.sessions[id]
	if !ok {
		return false
	}
	if !a.live(t, now) {
		delete(a.sessions, id)
		return false
	}
	t.seen = now
	a.sessions[id] = t
	return true
}

// endSession deletes r's session: its cookie no longer works anywhere.
func (a *auth) endSession(r *http.Request) {
	if c, err := r.Cookie(cookieName); err == nil {
		a.mu.Lock()
		delete(a.sessions, c.Value)
		a.mu.Unlock()
	}
}

// csrf is the form token of r's session ("" without one).
func (a *auth) csrf(r *http.Request) string {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return ""
	}
	return a.mac("csrf", c.Value)
}

// clientAddr is the address rate limits count r under: the connection's
// (an IPv6 one's /64), or the client's a trusted proxy forwarded, never a
// header anyone else could set.
func (s *Server) clientAddr(r *http.Request) string {
	return forwarded.Proxies(s.o.TrustedProxies).ClientKey(r)
}

// guess refuses r with 429 when its client spent its wrong tokens, and
// otherwise counts a wrong bearer token it carries. It reports whether r
// may go on.
func (s *Server) guess(w http.ResponseWriter, r *http.Request) bool {
	h, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !bearer || !s.auth.enabled() {
		return true
	}
	if wait := s.auth.limiter.wait(s.clientAddr(r), s.auth.now()); wait > 0 {
		s.tooMany(w, r, wait)
		return false
	}
	if !s.auth.rightToken(h) {
		s.auth.limiter.fail(s.clientAddr(r), s.auth.now())
	}
	return true
}

func (s *Server) tooMany(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
	s.fail(w, r, http.StatusTooManyRequests, errTooMany)
}

// reader wraps a page that needs read access.
func (s *Server) reader(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.guess(w, r) {
			return
		}
		if s.auth.loginToRead && s.auth.who(r) == anonymous {
			if wantsJSON(r) || r.Header.Get("Accept") == "text/event-stream" {
				s.fail(w, r, http.StatusUnauthorized, errLogin)
				return
			}
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		next(w, r)
	})
}

// operator wraps an action: it needs the token, and a cookie-borne request
// also its session's CSRF token (cross-origin requests are refused before).
func (s *Server) operator(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if !s.guess(w, r) {
			return
		}
		switch s.auth.who(r) {
		case anonymous:
			if !s.auth.enabled() {
				s.fail(w, r, http.StatusForbidden, errReadOnly)
				return
			}
			s.fail(w, r, http.StatusUnauthorized, errLogin)
			return
		case byCookie:
			got := r.Header.Get(csrfHeader)
			if got == "" {
				got = r.PostFormValue(csrfField)
			}
			if subtle.ConstantTimeCompare([]byte(got), []byte(s.auth.csrf(r))) != 1 {
				s.fail(w, r, http.StatusForbidden, errCSRF)
				return
			}
		}
		next(w, r)
	})
}

// maxFormBytes bounds an action's body: above the largest message, so an
// oversized message fails with its own typed error.
const maxFormBytes = 1 << 20

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	if !s.auth.enabled() {
		s.fail(w, r, http.StatusNotFound, errReadOnly)
		return
	}
	s.render(w, r, http.StatusOK, "login", loginView{Next: safeNext(r.URL.Query().Get("next"))})
}

type loginView struct {
	Next  string
	Error string
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.auth.enabled() {
		s.fail(w, r, http.StatusNotFound, errReadOnly)
		return
	}
	now := s.auth.now()
	if wait := s.auth.limiter.wait(s.clientAddr(r), now); wait > 0 {
		s.tooMany(w, r, wait)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	next := safeNext(r.PostFormValue("next"))
	if !s.auth.rightToken(r.PostFormValue("token")) {
		s.auth.limiter.fail(s.clientAddr(r), now)
		s.render(w, r, http.StatusUnauthorized, "login", loginView{Next: next, Error: errBadToken.Error()})
		return
	}
	s.auth.endSession(r) // a fresh session ID at every login
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.auth.newSession(now), Path: "/",
		MaxAge: int(sessionTTL.Seconds()), HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.secure(r)})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout ends the session on the server, then drops the cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	s.auth.endSession(r)
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.secure(r)})
	http.Redirect(w, r, "/agents", http.StatusSeeOther)
}

// secure: cookies go over TLS only when the console serves TLS, the
// request came over it, or a trusted proxy says it reached it over TLS.
func (s *Server) secure(r *http.Request) bool {
	return r.TLS != nil || s.o.TLS != nil || forwarded.Proxies(s.o.TrustedProxies).TLS(r)
}

// safeNext keeps a post-login redirect on this site: a relative path
// starting with one slash, with no backslash, control or space character
// (browsers drop a tab, so "/\t/evil.example" would leave) and no scheme
// or host. Anything else goes to "/".
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsRune(next, '\\') ||
		strings.IndexFunc(next, func(c rune) bool { return c <= ' ' || c == 0x7f || unicode.IsSpace(c) }) >= 0 {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.HasPrefix(u.Path, "//") {
		return "/"
	}
	return next
}
