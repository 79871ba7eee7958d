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
	"time"
)

// Session cookie and form field names.
const (
	cookieName = "tether_console"
	csrfField  = "csrf"
	csrfHeader = "X-CSRF-Token"
	// sessionTTL bounds a login.
	sessionTTL = 12 * time.Hour
)

var (
	errReadOnly    = errors.New("the console is read-only: start it with " + EnvToken + " set to act on agents")
	errLogin       = errors.New("log in with the operator token to do this")
	errBadToken    = errors.New("wrong token")
	errCSRF        = errors.New("the form is stale or came from elsewhere: reload the page and try again")
	errCrossOrigin = errors.New("cross-origin request refused")
)

// auth decides who may read and who may act. Sessions are stateless: a
// cookie holds its expiry and a MAC under a key drawn when the process
// starts, so a restart logs everyone out and the token itself never leaves
// the login form.
type auth struct {
	token       []byte
	key         []byte
	loginToRead bool
}

func newAuth(token string, loginToRead bool) (*auth, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return &auth{token: []byte(token), key: key, loginToRead: loginToRead}, nil
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
		if subtle.ConstantTimeCompare([]byte(h), a.token) == 1 {
			return byBearer
		}
		return anonymous
	}
	if c, err := r.Cookie(cookieName); err == nil && a.validSession(c.Value, time.Now()) {
		return byCookie
	}
	return anonymous
}

func (a *auth) mac(parts ...string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(strings.Join(parts, "\x00")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (a *auth) newSession(now time.Time) string {
	exp := strconv.FormatInt(now.Add(sessionTTL).Unix(), 10)
	return exp + "." + a.mac("session", exp)
}

func (a *auth) validSession(v string, now time.Time) bool {
	exp, sig, ok := strings.Cut(v, ".")
	if !ok {
		return false
	}
	unix, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || now.Unix() >= unix {
		return false
	}
	return hmac.Equal([]byte(sig), []byte(a.mac("session", exp)))
}

// csrf is the form token of r's session ("" without one).
func (a *auth) csrf(r *http.Request) string {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return ""
	}
	return a.mac("csrf", c.Value)
}

// reader wraps a page that needs read access.
func (s *Server) reader(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	next := safeNext(r.PostFormValue("next"))
	if subtle.ConstantTimeCompare([]byte(r.PostFormValue("token")), s.auth.token) != 1 {
		s.render(w, r, http.StatusUnauthorized, "login", loginView{Next: next, Error: errBadToken.Error()})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.auth.newSession(time.Now()), Path: "/",
		MaxAge: int(sessionTTL.Seconds()), HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, "/agents", http.StatusSeeOther)
}

// safeNext keeps a post-login redirect on this site.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/agents"
	}
	return next
}
