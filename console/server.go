package console

import (
	"crypto/tls"
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

//go:embed assets
var assets embed.FS

// Options configure a console.
type Options struct {
	// Client reaches Temporal; DataConverter is the one it was dialed with
	// (codec.Configure's when payloads are encrypted).
	Client        client.Client
	DataConverter converter.DataConverter
	// TaskQueue of new agents ("" = signals.TaskQueue).
	TaskQueue string
	// StreamClient reads the workers' live token streams (nil: default).
	StreamClient *http.Client
	// NoSearchAttributes starts agents without Tether's search attributes
	// (agent.WithoutSearchAttributes); the list then finds none.
	NoSearchAttributes bool
	// Token is the operator token; empty makes the console read-only. It
	// must be at least MinTokenBytes long and not only whitespace. Set,
	// every page needs a login (or the token as a bearer header), on
	// loopback too.
	Token string
	// LoginToRead makes every page need the token; required when the
	// console listens beyond loopback (see CheckAddr). A token implies it.
	LoginToRead bool
	// TLS, when set, serves HTTPS (Serve) and marks cookies Secure. Serve
	// refuses plain HTTP beyond loopback.
	TLS *tls.Config
	// Hosts are more names Serve answers requests for (a proxy's public
	// name), beside IP addresses and loopback names.
	Hosts []string
	// TrustedProxies are the reverse proxies in front of the console:
	// from them alone X-Forwarded-For names the
	// client the login rate limit counts, and X-Forwarded-Proto https
	// marks cookies Secure.
	TrustedProxies []netip.Prefix
	// TemporalUI, when set, is the Temporal Web UI's base URL, linked from
	// each agent for its workflow view.
	TemporalUI string
	// Namespace names the namespace in links to the Temporal Web UI.
	Namespace string
	// QueryTimeout bounds a status or log query; a log then comes from
	// history. 0 means DefaultQueryTimeout.
	QueryTimeout time.Duration
	Logger       *slog.Logger
}

// Defaults.
const (
	DefaultAddr         = "127.0.0.1:8280"
	DefaultQueryTimeout = 5 * time.Second
	MinTokenBytes       = 16
	// EnvToken is the environment variable the command line and worker
	// read the operator token from.
	EnvToken = "TETHER_CONSOLE_TOKEN"
	// EnvAllowedHosts lists, comma-separated, more names the console is
	// reached by (a proxy's or a DNS name), as the worker reads it.
	EnvAllowedHosts = "TETHER_ALLOWED_HOSTS"
)

// Server is a console. Close it to stop its live feeds.
type Server struct {
	o      Options
	agents *agent.Client
	auth   *auth
	pages  *templateSet
	feeds  *feeds
	mux    *http.ServeMux
	static http.Handler
}

// New validates o and builds the console.
func New(o Options) (*Server, error) {
	if o.Client == nil {
		return nil, errors.New("console: a Temporal client is required")
	}
	if o.Token != "" && strings.TrimSpace(o.Token) == "" {
		return nil, ErrBlankToken
	}
	if o.Token != "" && len(o.Token) < MinTokenBytes {
		return nil, ErrShortToken
	}
	if o.LoginToRead && o.Token == "" {
		return nil, errors.New("console: reading behind a login needs a token (" + EnvToken + ")")
	}
	if o.DataConverter == nil {
		o.DataConverter = converter.GetDefaultDataConverter()
	}
	if o.TaskQueue == "" {
		o.TaskQueue = signals.TaskQueue
	}
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = DefaultQueryTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	pages, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	a, err := newAuth(o.Token, o.LoginToRead)
	if err != nil {
		return nil, err
	}
	opts := []agent.Option{agent.WithDataConverter(o.DataConverter)}
	if o.StreamClient != nil {
		opts = append(opts, agent.WithStreamClient(o.StreamClient))
	}
	if o.NoSearchAttributes {
		opts = append(opts, agent.WithoutSearchAttributes())
	}
	static, _ := fs.Sub(assets, "assets/static")
	s := &Server{o: o, agents: agent.New(o.Client, o.TaskQueue, opts...), auth: a, pages: pages,
		static: http.StripPrefix("/static/", http.FileServerFS(static))}
	s.feeds = newFeeds(s)
	s.routes()
	return s, nil
}

// Close stops every live feed; open event streams end.
func (s *Server) Close() { s.feeds.close() }

// Handler serves the console.
func (s *Server) Handler() http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusForbidden, errCrossOrigin)
	}))
	return secureHeaders(cop.Handler(s.mux))
}

func (s *Server) routes() {
	m := http.NewServeMux()
	m.Handle("GET /static/", s.static)
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/agents", http.StatusSeeOther)
	})
	m.HandleFunc("GET /login", s.loginPage)
	m.HandleFunc("POST /login", s.login)
	m.HandleFunc("POST /logout", s.logout)
	m.Handle("GET /agents", s.reader(s.list))
	m.Handle("POST /agents", s.operator(s.create))
	agentRoute := func(pattern string, h http.Handler) { m.Handle(pattern, s.checkedID(h)) }
	agentRoute("GET /agents/{id}", s.reader(s.agentPage))
	agentRoute("GET /agents/{id}/events", s.reader(s.events))
	agentRoute("POST /agents/{id}/message", s.operator(s.message))
	agentRoute("POST /agents/{id}/cancel", s.operator(s.cancel))
	agentRoute("POST /agents/{id}/dispose", s.operator(s.dispose))
	agentRoute("POST /agents/{id}/model", s.operator(s.selectModel))
	agentRoute("POST /agents/{id}/fork", s.operator(s.fork))
	agentRoute("POST /agents/{id}/rewind", s.operator(s.rewind))
	m.Handle("GET /diff", s.reader(s.diff))
	for what := range decisions {
		agentRoute("POST /agents/{id}/"+what, s.operator(s.decide(what)))
	}
	s.mux = m
}

// secureHeaders forbids inline scripts, foreign resources and framing:
// model output rendered on these pages may try all three.
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}
