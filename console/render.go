package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"

	"math"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/tetherdev/tether/console/transcript"
)

// pages are the full pages; each is the layout with its own "content".
var pages = []string{"list", "agent", "login", "error", "diff"}

// templateSet holds one template per page, sharing the layout and the
// partials (a block, a step, the status panel) that live updates render
// on their own.
type templateSet struct {
	byPage  map[string]*template.Template
	partial *template.Template
}

func parseTemplates() (*templateSet, error) {
	base, err := template.New("").Funcs(funcs).ParseFS(assets, "assets/templates/partials/*.html")
	if err != nil {
		return nil, fmt.Errorf("console templates: %w", err)
	}
	set := &templateSet{byPage: map[string]*template.Template{}, partial: base}
	for _, p := range pages {
		t, err := template.Must(base.Clone()).ParseFS(assets, "assets/templates/layout.html", "assets/templates/"+p+".html")
		if err != nil {
			return nil, fmt.Errorf("console template %s: %w", p, err)
		}
		set.byPage[p] = t
	}
	return set, nil
}

// session is what a page knows of its reader.
type session struct {
	Enabled  bool   // an operator token is configured
	Operator bool   // the reader may act
	CSRF     string // the form token of the reader's session
	Path     string // the page's own path, for the login link
}

// view is what the layout renders.
type view struct {
	Title      string
	Session    session
	TemporalUI string
	Body       any
}

func (s *Server) session(r *http.Request) session {
	w := s.auth.who(r)
	return session{Enabled: s.auth.enabled(), Operator: w != anonymous, CSRF: s.auth.csrf(r), Path: r.URL.RequestURI()}
}

// render writes page with body, or a plain error when the template fails.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, page string, body any) {
	var b bytes.Buffer
	v := view{Title: title(page, body), Session: s.session(r), TemporalUI: s.o.TemporalUI, Body: body}
	if err := s.pages.byPage[page].ExecuteTemplate(&b, "layout", v); err != nil {
		s.o.Logger.Error("Console page failed to render", "page", page, "error", err)
		http.Error(w, "console: page failed to render", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// partial renders one named partial to a string (live updates).
func (s *Server) partial(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := s.pages.partial.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

func title(page string, body any) string {
	if t, ok := body.(interface{ PageTitle() string }); ok {
		return t.PageTitle()
	}
	return strings.ToUpper(page[:1]) + page[1:]
}

func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"agentURL":   func(id string) string { return "/agents/" + url.PathEscape(id) },
	"pathEscape": url.PathEscape,
	"num":        num,
	"ms":         millis,
	"cost":       func(c float64) string { return strconv.FormatFloat(c, 'f', 4, 64) },
	"clip":       transcript.Clip,
	"pct":        pct,
	"sub":        func(a, b float64) float64 { return a - b },
	"ago":        ago,
	"since":      since,
	"stamp":      func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"iso":        func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"join":       strings.Join,
	"base":       path.Base,
}

// num groups the digits of an integer by thousands.
func num(v any) string {
	var n int64
	switch v := v.(type) {
	case int:
		n = int64(v)
	case int64:
		n = v
	default:
		return fmt.Sprint(v)
	}
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// millis formats a duration in milliseconds for people.
func millis(ms int64) string {
	if ms < 1000 {
		return strconv.FormatInt(ms, 10) + " ms"
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
}

// pct places ms on the latency strip's log scale: 100 ms is a tenth of the
// strip, a minute all of it.
func pct(ms int64) float64 {
	if ms <= 0 {
		return 0
	}
	return math.Min(100, 100*math.Log10(1+float64(ms)/100)/math.Log10(1+600))
}

func ago(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return since(t) + " ago"
}

// since is the time since t for people: "12s", "3m", "5h", "2d".
func since(t time.Time) string {
	d := max(time.Since(t).Round(time.Second), 0)
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h"
	}
	return strconv.Itoa(int(d.Hours()/24)) + "d"
}

// pathOf is the path and query of a URL (a Referer), "" when it has none.
func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return ""
	}
	if u.RawQuery != "" {
		return u.Path + "?" + u.RawQuery
	}
	return u.Path
}
