// Package httpserve runs the worker's HTTP endpoints (the codec server,
// the console, live model streams, metrics) the one way: the address is
// bound while the app is built, so a port in use stops the app before it
// starts with a sentence naming the flag that moves it, the server
// serves from the app's start to its stop, and every request passes the
// endpoint's Guard first (Host and Origin, against DNS rebinding and
// cross-origin writes).
package httpserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/internal/startup"
)

// ReadHeaderTimeout bounds a slow client's request headers on every
// endpoint.
const ReadHeaderTimeout = 10 * time.Second

// Listen binds addr for what (as a user reads it: "metrics", "the
// console"), which flag configures.
func Listen(addr, what, flag string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &startup.Error{Problem: fmt.Sprintf("cannot serve %s on %s (%v)", what, addr, err),
			Fix: "choose another address with " + flag + " (127.0.0.1:0 picks a free port)", Err: err}
	}
	return ln, nil
}

// Endpoint is an HTTP server and the listener it serves on.
type Endpoint struct {
	// Name starts the log line of a server that fails: "Console failed".
	Name     string
	Server   *http.Server
	Listener net.Listener
	// Started runs once the server serves (to log where); may be nil.
	Started func()
	// Stop stops the server and what it serves; nil shuts the server down.
	Stop func(context.Context) error
	// Guard names the endpoint's other hosts and trusted origins; the zero
	// Guard serves IP addresses and loopback names only.
	Guard Guard
}

// Run serves e from the app's start, over TLS when the server has a
// TLSConfig, until its stop, behind e.Guard. It fails only on a malformed
// trusted origin, before anything is served.
func Run(lc fx.Lifecycle, logger *slog.Logger, e Endpoint) error {
	h, err := e.Guard.Handler(e.Server.Handler)
	if err != nil {
		return err
	}
	e.Server.Handler = h
	stop := e.Stop
	if stop == nil {
		stop = e.Server.Shutdown
	}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go serve(e, logger)
			if e.Started != nil {
				e.Started()
			}
			return nil
		},
		OnStop: stop,
	})
	return nil
}

func serve(e Endpoint, logger *slog.Logger) {
	var err error
	if e.Server.TLSConfig != nil {
		err = e.Server.ServeTLS(e.Listener, "", "") // the key pair is in TLSConfig
	} else {
		err = e.Server.Serve(e.Listener)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error(e.Name+" failed", "error", err)
	}
}
