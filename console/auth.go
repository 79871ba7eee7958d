package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tetherdev/tether/internal/forwarded"
	"github.com/tetherdev/tether/internal/login"
)

// Session cookie and form field names, and the login rate limit: each
// client address may send loginBurst wrong tokens, then one more every
// loginRefill. Sessions last as login's do (login.SessionTTL,
// login.SessionIdle, login.MaxSessions).
const (
	cookieName  = "tether_console"
	csrfField   = "csrf"
	csrfHeader  = "X-CSRF-Token"
	loginBurst  = 5
	loginRefill = 20 * time.Second
)

// auth decides who may read and who may act, by login's Door: sessions
// live in this process behind a random cookie, the token itself never
// leaves the login form, and wrong tokens (at login or as a bearer
// header) are rate limited per client address.
type auth struct {
	door        *login.Door
	key         []byte // MACs the CSRF token of a session
	loginToRead bool
	now         func() time.Time
}

// newAuth: once a token is configured every page needs a login; without
// one the console is read-only and open (loginToRead then needs a token,
// which New checks).
func newAuth(token string, loginToRead bool) (*auth, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return &auth{door: login.NewDoor(token, cookieName, login.NewLimiter(loginBurst, loginRefill)), key: key,
		loginToRead: loginToRead || token != "", now: time.Now}, nil
}

// enabled reports whether an operator token is configured.
func (a *auth) enabled() bool { return a.door.Enabled() }

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
		if a.door.Right(h) {
			return byBearer
		}
		return anonymous
	}
	if _, ok := a.door.Session(r, a.now()); ok {
		return byCookie
	}
	return anonymous
}

func (a *auth) mac(parts ...string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(strings.Join(parts, "\x00")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
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
	if _, wait := s.auth.door.Bearer(s.clientAddr(r), h, s.auth.now()); wait > 0 {
		s.tooMany(w, r, wait)
		return false
	}
	return true
}

func (s *Server) tooMany(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	login.RetryAfter(w, wait)
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
	ok, at := s.auth.door.Login(w, r, s.clientAddr(r), s.auth.now(), s.secure(r))
	switch {
	case ok:
	case at.Wait > 0:
		s.tooMany(w, r, at.Wait)
	default:
		s.render(w, r, http.StatusUnauthorized, "login", loginView{Next: at.Next, Error: errBadToken.Error()})
	}
}

// logout ends the session on the server, then drops the cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	s.auth.door.Logout(w, r, s.secure(r))
	http.Redirect(w, r, "/agents", http.StatusSeeOther)
}

// secure: cookies go over TLS only when the console serves TLS, the
// request came over it, or a trusted proxy says it reached it over TLS.
func (s *Server) secure(r *http.Request) bool {
	return r.TLS != nil || s.o.TLS != nil || forwarded.Proxies(s.o.TrustedProxies).TLS(r)
}

// safeNext keeps a post-login redirect on this site (login.SafeNext).
func safeNext(next string) string { return login.SafeNext(next) }
