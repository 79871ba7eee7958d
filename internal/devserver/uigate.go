package devserver

import (
	"crypto/rand"
	"crypto/subtle"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

// The UI gate's paths (none the Web UI uses), cookie and limits.
const (
	uiLoginPath  = "/_tether/login"
	uiLogoutPath = "/_tether/logout"
	// uiCookieName differs from the console's: a browser sends the cookies
	// of 127.0.0.1 to each of its ports.
	uiCookieName  = "tether_ui"
	uiSessionTTL  = 8 * time.Hour
	uiSessionIdle = time.Hour
	uiMaxSessions = 1024
	// uiMaxFails wrong tokens in uiFailWindow close the login form until
	// the window has passed: every client is on loopback, so they are
	// counted together, and sessions already made keep working.
	uiMaxFails   = 5
	uiFailWindow = time.Minute
)

// uiGate lets a request reach the Web UI only with a login: a session
// cookie its login form hands out for the token, or the token as a bearer
// header. Both are taken off the request before the UI sees it, since the
// UI forwards headers to the frontend. Its methods are safe for
// concurrent use.
type uiGate struct {
	token []byte
	next  http.Handler
	now   func() time.Time

	mu       sync.Mutex
	sessions map[string]uiSession
	fails    []time.Time // wrong tokens within uiFailWindow
}

type uiSession struct{ expires, seen time.Time }

func newUIGate(token string, next http.Handler) *uiGate {
	return &uiGate{token: []byte(token), next: next, now: time.Now, sessions: map[string]uiSession{}}
}

func (g *uiGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == uiLoginPath && r.Method == http.MethodPost:
		g.login(w, r)
	case r.URL.Path == uiLoginPath:
		g.form(w, http.StatusOK, safeNext(r.URL.Query().Get("next")), "")
	case r.URL.Path == uiLogoutPath && r.Method == http.MethodPost:
		g.logout(w, r)
	case g.admit(r):
		g.next.ServeHTTP(w, r)
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && !strings.HasPrefix(r.URL.Path, "/api/") &&
		strings.Contains(r.Header.Get("Accept"), "text/html"):
		g.form(w, http.StatusUnauthorized, safeNext(r.URL.RequestURI()), "")
	default:
		http.Error(w, "log in to the Web UI first, at "+uiLoginPath, http.StatusUnauthorized)
	}
}

// admit reports whether r carries the token or a live session, and takes
// both off it.
func (g *uiGate) admit(r *http.Request) bool {
	ok := false
	if h, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); bearer {
		// Counted as the login form counts, so the header is no faster
		// a way to guess.
		if ok = g.failWait() == 0 && g.rightToken(h); !ok {
			g.fail()
		}
		r.Header.Del("Authorization")
	}
	var kept []string
	for _, c := range r.Cookies() {
		if c.Name == uiCookieName {
			ok = ok || g.live(c.Value)
			continue
		}
		kept = append(kept, c.String())
	}
	r.Header.Del("Cookie")
	if len(kept) > 0 {
		r.Header.Set("Cookie", strings.Join(kept, "; "))
	}
	return ok
}

func (g *uiGate) rightToken(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), g.token) == 1
}

func (g *uiGate) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	next := safeNext(r.PostFormValue("next"))
	if wait := g.failWait(); wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)+1))
		g.form(w, http.StatusTooManyRequests, next, "too many wrong tokens: wait a minute and try again")
		return
	}
	if !g.rightToken(r.PostFormValue("token")) {
		g.fail()
		g.form(w, http.StatusUnauthorized, next, "wrong token")
		return
	}
	if c, err := r.Cookie(uiCookieName); err == nil {
		g.end(c.Value) // a fresh session ID at every login
	}
	http.SetCookie(w, &http.Cookie{Name: uiCookieName, Value: g.newSession(), Path: "/",
		MaxAge: int(uiSessionTTL.Seconds()), HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (g *uiGate) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(uiCookieName); err == nil {
		g.end(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: uiCookieName, Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, uiLoginPath, http.StatusSeeOther)
}

// newSession starts a session and returns its ID, dropping ended ones and,
// beyond uiMaxSessions, the one that ends first.
func (g *uiGate) newSession() string {
	id, now := rand.Text()+rand.Text(), g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	for k, s := range g.sessions {
		if !s.liveAt(now) {
			delete(g.sessions, k)
		}
	}
	for len(g.sessions) >= uiMaxSessions {
		first := ""
		for k, s := range g.sessions {
			if first == "" || s.expires.Before(g.sessions[first].expires) {
				first = k
			}
		}
		delete(g.sessions, first)
	}
	g.sessions[id] = uiSession{expires: now.Add(uiSessionTTL), seen: now}
	return id
}

func (s uiSession) liveAt(now time.Time) bool {
	return now.Before(s.expires) && now.Sub(s.seen) < uiSessionIdle
}

// live reports whether id is a live session, and counts it used.
func (g *uiGate) live(id string) bool {
	now := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	s, ok := g.sessions[id]
	if !ok || !s.liveAt(now) {
		delete(g.sessions, id)
		return false
	}
	s.seen = now
	g.sessions[id] = s
	return true
}

func (g *uiGate) end(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.sessions, id)
}

func (g *uiGate) fail() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.fails = append(g.fails, g.now())
}

// failWait is how long the login form stays closed: until the oldest of
// uiMaxFails recent wrong tokens leaves the window.
func (g *uiGate) failWait() time.Duration {
	now := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	for len(g.fails) > 0 && now.Sub(g.fails[0]) >= uiFailWindow {
		g.fails = g.fails[1:]
	}
	if len(g.fails) < uiMaxFails {
		return 0
	}
	return uiFailWindow - now.Sub(g.fails[len(g.fails)-uiMaxFails])
}

var uiLoginForm = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Log in: Temporal Web UI (Tether)</title></head>
<body><h1>Temporal Web UI</h1>
<p>This Web UI serves only after a login with the operator token (TETHER_CONSOLE_TOKEN).</p>
{{if .Error}}<p role="alert"><strong>{{.Error}}</strong></p>{{end}}
<form method="post" action="` + uiLoginPath + `">
<input type="hidden" name="next" value="{{.Next}}">
<label>Token <input type="password" name="token" autocomplete="current-password" autofocus required></label>
<button type="submit">Log in</button>
</form></body></html>
`))

func (g *uiGate) form(w http.ResponseWriter, status int, next, problem string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = uiLoginForm.Execute(w, struct{ Next, Error string }{next, problem})
}

// safeNext keeps a post-login redirect on this site: a path with one
// leading slash and no backslash, space or control character (browsers
// drop a tab, so "/\t/evil.example" would leave), and no scheme or host.
// Anything else goes to "/".
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsRune(next, '\\') ||
		strings.IndexFunc(next, func(c rune) bool { return c <= ' ' || c == 0x7f || unicode.IsSpace(c) }) >= 0 {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.HasPrefix(u.Path, "//") || u.Path == uiLoginPath {
		return "/"
	}
	return next
}
