package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// StopWait is how long Close lets a stdio server exit after closing its
// stdin before it is terminated (SIGTERM, then SIGKILL after as long
// again); then, on Linux, what is left of its process group is killed.
const StopWait = 2 * time.Second

// Manager holds one MCP session per configured server for the whole
// worker. A session is opened by its first use, shared by every call and
// listing (the SDK multiplexes concurrent requests on it), dropped when it
// breaks and opened again by the next use. Close ends them all, stopping
// the processes of stdio servers. Safe for concurrent use.
type Manager struct {
	client   *sdk.Client
	servers  map[string]Server
	log      *slog.Logger
	progress *progressRoutes

	mu     sync.Mutex
	conns  map[string]*conn
	closed bool
}

// conn is one server's session slot.
type conn struct {
	opening chan struct{} // a one-slot lock, so a caller can give up waiting for it
	mu      sync.Mutex
	session *sdk.ClientSession
}

// NewManager returns a Manager for the servers of c; it opens nothing yet.
func NewManager(c Config, log *slog.Logger) *Manager {
	progress := &progressRoutes{}
	m := &Manager{
		client: sdk.NewClient(&sdk.Implementation{Name: "tether", Version: "1"},
			&sdk.ClientOptions{ProgressNotificationHandler: progress.handle}),
		servers:  c.Servers,
		log:      log,
		progress: progress,
		conns:    map[string]*conn{},
	}
	for name := range c.Servers {
		m.conns[name] = &conn{opening: make(chan struct{}, 1)}
	}
	return m
}

// Configured reports whether server is one of the Manager's.
func (m *Manager) Configured(server string) bool {
	_, ok := m.servers[server]
	return ok
}

// session returns the live session of server, opening it if needed.
func (m *Manager) session(ctx context.Context, server string) (*sdk.ClientSession, error) {
	c, ok := m.conns[server]
	if !ok {
		return nil, fmt.Errorf("MCP server %q is not configured on this worker", server)
	}
	if s := c.current(); s != nil {
		return s, nil
	}
	select {
	case c.opening <- struct{}{}:
		defer func() { <-c.opening }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if s := c.current(); s != nil { // another caller opened it meanwhile
		return s, nil
	}
	s, err := m.open(ctx, m.servers[server])
	if err != nil {
		return nil, fmt.Errorf("connect to MCP server %q: %w", server, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		_ = s.Close()
		return nil, errClosed
	}
	c.set(s)
	go func() { // a session the server ends (a stdio process exiting) is dropped
		_ = s.Wait()
		c.drop(s)
		_ = s.Close()
	}()
	return s, nil
}

// open connects to srv. The session outlives ctx, which bounds only the
// connection and the MCP handshake; open returns when ctx ends even if
// the SDK takes longer to give up (it closes a half-open HTTP session with
// a request of its own), and a session that connects after all is closed.
func (m *Manager) open(ctx context.Context, srv Server) (*sdk.ClientSession, error) {
	if m.isClosed() {
		return nil, errClosed
	}
	life, cancel := context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx, cancel)
	type opened struct {
		s   *sdk.ClientSession
		err error
	}
	done := make(chan opened, 1)
	go func() {
		s, err := m.client.Connect(life, m.transport(srv), nil)
		stop()
		cancel() // the session ignores it once connected
		done <- opened{s, err}
	}()
	select {
	case o := <-done:
		return o.s, o.err
	case <-ctx.Done():
		go func() {
			if o := <-done; o.s != nil {
				_ = o.s.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

func (m *Manager) transport(srv Server) sdk.Transport {
	if srv.URL != "" {
		return &sdk.StreamableClientTransport{
			Endpoint:   srv.URL,
			HTTPClient: &http.Client{Transport: refusals{headers{srv.Headers, http.DefaultTransport}}},
			MaxRetries: -1, // a broken session is reopened by the next call instead
		}
	}
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Env, cmd.Dir = srv.Env, srv.Dir
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would mean the worker's whole environment
	}
	cmd.Stderr = &stderrLog{log: m.log, server: srv.Name}
	return newStdio(cmd)
}

// drop forgets the session of server if it is still s and closes it, so
// the next use opens a new one.
func (m *Manager) drop(server string, s *sdk.ClientSession) {
	if c, ok := m.conns[server]; ok && c.drop(s) {
		go func() { _ = s.Close() }()
	}
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// Close ends every session at once and waits for them; stdio servers get
// StopWait to exit before they are terminated. Later uses fail.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, 0, len(m.conns))
	var emu sync.Mutex
	for name, c := range m.conns {
		s := c.take()
		if s == nil {
			continue
		}
		wg.Go(func() {
			if err := s.Close(); err != nil {
				emu.Lock()
				errs = append(errs, fmt.Errorf("close MCP server %q: %w", name, err))
				emu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (c *conn) current() *sdk.ClientSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

func (c *conn) set(s *sdk.ClientSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.session = s
}

// drop clears the slot if it still holds s and reports whether it did.
func (c *conn) drop(s *sdk.ClientSession) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != s {
		return false
	}
	c.session = nil
	return true
}

func (c *conn) take() *sdk.ClientSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.session
	c.session = nil
	return s
}

// headers adds a server's configured headers to every request.
type headers struct {
	h    http.Header
	next http.RoundTripper
}

func (t headers) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.h) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.h {
			r.Header[k] = v
		}
	}
	return t.next.RoundTrip(r)
}

// maxStderrLine bounds one logged line of a server's stderr.
const maxStderrLine = 1 << 10

// stderrLog logs what a stdio server writes to stderr, a line at a time.
// exec.Cmd calls Write from one goroutine.
type stderrLog struct {
	log    *slog.Logger
	server string
	line   []byte
}

func (w *stderrLog) Write(p []byte) (int, error) {
	for _, b := range p {
		if b != '\n' {
			if len(w.line) < maxStderrLine {
				w.line = append(w.line, b)
			}
			continue
		}
		w.log.Info("MCP server stderr", "server", w.server, "line", string(w.line))
		w.line = w.line[:0]
	}
	return len(p), nil
}
