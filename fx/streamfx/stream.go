// Package streamfx serves live model chunks from the worker: the activities'
// stream hub behind an HTTP endpoint (Server-Sent Events). Each worker serves
// the streams of the model calls it runs; clients find a call's stream URL in
// its activity's heartbeat details, so several workers need no broker.
package streamfx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/startup"
)

// Module provides the hub and activities.LiveStreams, served while the app runs.
var Module = fx.Module("stream", fx.Provide(New))

// Params are New's dependencies.
type Params struct {
	fx.In
	Config    configfx.Config
	Lifecycle fx.Lifecycle
	Logger    *slog.Logger
}

// Result is what New provides.
type Result struct {
	fx.Out
	Hub     *stream.Hub
	Streams activities.LiveStreams
}

// New binds the stream address at construction (the advertised URL needs
// the port) and serves it from start to stop.
func New(p Params) (Result, error) {
	ln, err := net.Listen("tcp", p.Config.StreamAddr)
	if err != nil {
		return Result{}, &startup.Error{Problem: fmt.Sprintf("cannot serve live streams on %s (%v)", p.Config.StreamAddr, err),
			Fix: "choose another address with --stream-addr (127.0.0.1:0 picks a free port)", Err: err}
	}
	base := p.Config.StreamURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	hub := stream.NewHub(stream.HubOptions{})
	srv := &http.Server{Handler: hub.Handler(), ReadHeaderTimeout: 10 * 1e9}
	p.Lifecycle.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					p.Logger.Error("Live stream server failed", "error", err)
				}
			}()
			p.Logger.Info("Serving live model streams", "url", base)
			return nil
		},
		OnStop: func(ctx context.Context) error {
			hub.Close()
			return srv.Shutdown(ctx)
		},
	})
	return Result{Hub: hub, Streams: activities.HubStreams{Hub: hub, BaseURL: base}}, nil
}
