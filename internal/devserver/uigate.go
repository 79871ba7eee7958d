package devserver

import (
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/tetherdev/tether/internal/login"
)

// The UI gate's paths (none the Web UI uses), cookie and limits.
const (
	uiLoginPath  = "/_tether/login"
	uiLogoutPath = "/_tether/logout"
	// uiCookieName differs from the console's: a browser sends the cookies
	// of 127.0.0.1 to each of its ports.
	uiCookieName  = "tether_ui"
	uiSessionTTL  = login.SessionTTL
	uiSessionIdle = login.SessionIdle
	// uiMaxFails wrong tokens close the login form, which then takes one
	// more every uiFailWindow/uiMaxFails: every client is on loopback, so
	// they are counted together (as uiClient), and sessions already made
	// keep working.
	uiMaxFails   = 5
	uiFailWindow = time.Minute
	uiClient     = "loopback"
)

// uiGate lets a request reach the Web UI only with a login (login's
// Door): a session cookie its login form hands out for the token, or the
// token as a bearer header. Both are taken off the request before the UI
// sees it, since the UI forwards headers to the frontend. Its methods are
// safe for concurrent use.
type uiGate struct {
	door *login.Door
	next http.Handler
	now  func() time.Time
}

func newUIGate(token string, next http.Handler) *uiGate {
	return &uiGate{door: login.NewDoor(token, uiCookieName, login.NewLimiter(uiMaxFails, uiFailWindow/uiMaxFails)),
		next: next, now: time.Now}
}

func (g *uiGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == uiLoginPath && r.Method == http.MethodPost:
		g.login(w, r)
	case r.URL.Path == uiLoginPath:
		g.form(w, http.StatusOK, safeNext(r.URL.Query().Get("next")), "")
	case r.URL.Path == uiLogoutPath && r.Method == http.MethodPost:
		g.door.Logout(w, r, false)
		http.Redirect(w, r, uiLoginPath, http.StatusSeeOther)
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
		ok, _ = g.door.Bearer(uiClient, h, g.now())
		r.Header.Del("Authorization")
	}
	if _, live := g.door.Session(r, g.now()); live {
		ok = true
	}
	var kept []string
	for _, c := range r.Cookies() {
		if c.Name != uiCookieName {
			kept = append(kept, c.String())
		}
	}
	r.Header.Del("Cookie")
	if len(kept) > 0 {
		r.Header.Set("Cookie", strings.Join(kept, "; "))
	}
	return ok
}

func (g *uiGate) login(w http.ResponseWriter, r *http.Request) {
	ok, at := g.door.Login(w, r, uiClient, g.now(), false, uiLoginPath)
	switch {
	case ok:
	case at.Wait > 0:
		login.RetryAfter(w, at.Wait)
		g.form(w, http.StatusTooManyRequests, at.Next, "too many wrong tokens: wait and try again")
	default:
		g.form(w, http.StatusUnauthorized, at.Next, "wrong token")
	}
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

// safeNext keeps a post-login redirect within the UI (login.SafeNext),
// never back to the login form.
func safeNext(next string) string { return login.SafeNext(next, uiLoginPath) }
