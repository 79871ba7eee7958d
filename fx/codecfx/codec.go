// Package codecfx serves the worker's payload codec to the Temporal Web UI
// and CLI (the remote codec protocol) on --codec-addr, so operators read
// decrypted payloads. It is included only when an address is configured,
// which requires keys. The codec server never encodes or decodes for a
// browser origin other than the configured ones, nor without the configured
// bearer token.
package codecfx

import (
	"log/slog"
	"net/http"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/httpserve"
)

// Module serves the codec server while the app runs.
var Module = fx.Module("codec",
	fx.Provide(New),
	fx.Invoke(func(Endpoint) {}),
)

// Params are New's dependencies.
type Params struct {
	fx.In
	Config    configfx.Config
	Lifecycle fx.Lifecycle
	Logger    *slog.Logger
}

// Endpoint is the codec server's base URL, which the embedded Web UI is
// pointed at.
type Endpoint struct{ URL string }

// New binds the address at construction, so the embedded UI can be
// configured with the URL before it starts, and serves from start to stop.
func New(p Params) (Endpoint, error) {
	cfg := p.Config.Codec
	c, err := codec.New(cfg.Keys)
	if err != nil {
		return Endpoint{}, err
	}
	h, err := codec.NewHandler(c, codec.ServerOptions{Origins: cfg.Origins, Token: cfg.Token})
	if err != nil {
		return Endpoint{}, err
	}
	ln, err := httpserve.Listen(cfg.Addr, "the codec server", "--codec-addr")
	if err != nil {
		return Endpoint{}, err
	}
	url := "http://" + ln.Addr().String()
	httpserve.Run(p.Lifecycle, p.Logger, httpserve.Endpoint{
		Name: "Codec server", Listener: ln,
		Server: &http.Server{Handler: h, ReadHeaderTimeout: httpserve.ReadHeaderTimeout},
		Started: func() {
			p.Logger.Info("Serving the payload codec", "url", url, "origins", cfg.Origins,
				"active_key", c.ActiveKeyID(), "bearer_token", cfg.Token != "")
		},
	})
	return Endpoint{URL: url}, nil
}
