// Package streamfx serves live model chunks from the worker: the activities'
// stream hub behind an HTTP endpoint (Server-Sent Events), over TLS when
// configured. Each worker serves the streams of the model calls it runs,
// per call and per agent (a feed of all of an agent's calls); clients find
// an agent's feed through the agent's feed query and a call's stream in its
// activity's heartbeat details, so several workers need no broker.
package streamfx

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/httpserve"
	"github.com/tetherdev/tether/internal/startup"
)

// Module provides the hub and activities.LiveStreams, served while the app runs.
var Module = fx.Module("stream", fx.Provide(New))

// Server timeouts. A stream response outlives any WriteTimeout, so the
// handler bounds each write itself; these bound what comes before it and
// the idle time between requests.
const (
	idleTimeout    = 2 * time.Minute
	maxHeaderBytes = 16 << 10
)

// Params are New's dependencies.
type Params struct {
	fx.In
	Config    configfx.StreamConfig
	Lifecycle fx.Lifecycle
	Logger    *slog.Logger
}

// Result is what New provides.
type Result struct {
	fx.Out
	Hub     *stream.Hub
	Streams activities.LiveStreams
}

// New loads the TLS key pair and binds the stream address at construction,
// so a bad file or a taken port stops the worker before it starts (and the
// advertised URL needs the port), then serves from start to stop.
func New(p Params) (Result, error) {
	c := p.Config
	tlsConfig, err := serverTLS(c)
	if err != nil {
		return Result{}, &startup.Error{Problem: "cannot load the live stream TLS key pair (" + err.Error() + ")",
			Fix: "point --stream-tls-cert and --stream-tls-key at a PEM certificate and its key", Err: err}
	}
	ln, err := httpserve.Listen(c.Addr, "live streams", "--stream-addr")
	if err != nil {
		return Result{}, err
	}
	base := c.URL
	if base == "" {
		base = scheme(c) + "://" + ln.Addr().String()
	}
	hub := stream.NewHub(stream.HubOptions{MaxSubscribers: c.MaxSubscribers, MaxSubscribersPerStream: c.MaxSubscribersPerStream})
	srv := &http.Server{
		Handler:           hub.Handler(),
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: httpserve.ReadHeaderTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		// Failed handshakes and the like: no token is in them.
		ErrorLog: slog.NewLogLogger(p.Logger.Handler(), slog.LevelDebug),
	}
	err = httpserve.Run(p.Lifecycle, p.Logger, httpserve.Endpoint{
		Name: "Live stream server", Server: srv, Listener: ln, Guard: httpserve.Guard{Hosts: advertisedHost(base)},
		Started: func() { p.Logger.Info("Serving live model streams", "url", base, "tls", c.TLS()) },
		Stop: func(ctx context.Context) error {
			hub.Close()
			return srv.Shutdown(ctx)
		},
	})
	if err != nil {
		ln.Close()
		return Result{}, err
	}
	return Result{Hub: hub, Streams: activities.HubStreams{Hub: hub, BaseURL: base}}, nil
}

// advertisedHost is the host of --stream-url, the one name besides IP
// addresses and loopback that clients reach the streams by.
func advertisedHost(base string) []string {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	return []string{u.Hostname()}
}

// serverTLS loads the configured key pair, or returns nil for plain HTTP.
func serverTLS(c configfx.StreamConfig) (*tls.Config, error) {
	if !c.TLS() {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("live stream TLS key pair (%s, %s): %w", c.TLSCert, c.TLSKey, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

func scheme(c configfx.StreamConfig) string {
	if c.TLS() {
		return "https"
	}
	return "http"
}
