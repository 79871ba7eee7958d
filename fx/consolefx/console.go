// Package consolefx serves Tether's web console from `worker --dev`, beside
// the embedded Temporal Web UI and over the worker's own client (so
// encrypted payloads decode with the worker's keys). It is included only
// when the configuration names an address, and never serves beyond
// loopback without an operator token or without TLS. With a token every
// page needs a login; requests naming a foreign Host are refused.
package consolefx

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net/http"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/console"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/devserver"
	"github.com/tetherdev/tether/internal/httpserve"
	"github.com/tetherdev/tether/internal/startup"
)

// Module serves the console while the app runs.
var Module = fx.Module("console",
	fx.Provide(New),
	fx.Invoke(func(Endpoint) {}),
)

// Params are New's dependencies.
type Params struct {
	fx.In
	Config        configfx.ConsoleConfig
	Queue         configfx.Queue
	Client        client.Client
	DataConverter converter.DataConverter
	Server        *devserver.Server
	Lifecycle     fx.Lifecycle
	Logger        *slog.Logger
}

// Endpoint is the console's base URL.
type Endpoint struct{ URL string }

// New binds the address at construction, so a port in use fails the app
// before it starts, and serves from start to stop.
func New(p Params) (Endpoint, error) {
	cfg := p.Config
	if err := console.CheckAddr(cfg.Addr, cfg.Token); err != nil {
		return Endpoint{}, &startup.Error{Problem: err.Error(), Fix: "set " + configfx.EnvConsoleToken + ", or serve on loopback", Err: err}
	}
	if err := console.CheckTLS(cfg.Addr, cfg.TLSCert != ""); err != nil {
		return Endpoint{}, &startup.Error{Problem: err.Error(),
			Fix: "set --console-tls-cert and --console-tls-key (" + configfx.EnvConsoleTLSCert + ", " + configfx.EnvConsoleTLSKey + ")", Err: err}
	}
	tlsConfig, err := loadTLS(cfg)
	if err != nil {
		return Endpoint{}, err
	}
	c, err := console.New(console.Options{Client: p.Client, DataConverter: p.DataConverter, TaskQueue: p.Queue.TaskQueue,
		Namespace: p.Server.Namespace(), Token: cfg.Token, LoginToRead: !console.Loopback(cfg.Addr), TLS: tlsConfig,
		TemporalUI: p.Server.UIAddress(), Logger: p.Logger, NoSearchAttributes: p.Queue.NoSearchAttributes,
		TrustedProxies: cfg.TrustedProxies})
	if err != nil {
		return Endpoint{}, err
	}
	ln, err := httpserve.Listen(cfg.Addr, "the console", "--console-addr")
	if err != nil {
		return Endpoint{}, err
	}
	url := scheme(tlsConfig) + "://" + ln.Addr().String()
	srv := &http.Server{Handler: c.Handler(), ReadHeaderTimeout: httpserve.ReadHeaderTimeout, TLSConfig: tlsConfig}
	err = httpserve.Run(p.Lifecycle, p.Logger, httpserve.Endpoint{
		Name: "Console", Server: srv, Listener: ln, Guard: httpserve.Guard{Hosts: cfg.Hosts},
		Started: func() {
			p.Logger.Info("Serving the Tether console", "url", url, "read_only", cfg.Token == "", "login", cfg.Token != "")
		},
		Stop: func(context.Context) error { return console.Shutdown(srv, c) },
	})
	if err != nil {
		ln.Close()
		return Endpoint{}, err
	}
	return Endpoint{URL: url}, nil
}

// loadTLS loads the console's key pair, or returns nil for plain HTTP.
func loadTLS(cfg configfx.ConsoleConfig) (*tls.Config, error) {
	if cfg.TLSCert == "" {
		return nil, nil
	}
	c, err := console.LoadTLS(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, &startup.Error{Problem: "cannot load the console's TLS key pair (" + err.Error() + ")",
			Fix: "point --console-tls-cert and --console-tls-key at a PEM certificate and its key", Err: err}
	}
	return c, nil
}

func scheme(c *tls.Config) string {
	if c != nil {
		return "https"
	}
	return "http"
}
