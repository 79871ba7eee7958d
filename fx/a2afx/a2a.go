// Package a2afx serves Tether's agents over the Agent2Agent protocol from
// `worker --dev` (internal/a2aserver), beside the console and over the
// worker's own client. It is included only when --a2a-addr names an
// address; it never serves beyond loopback without a token and TLS
// (configfx refuses that configuration), and it refuses a profiles file
// naming a tool or provider this worker lacks before anything is served.
package a2afx

import (
	"context"
	"crypto/tls"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/providerfx"
	"github.com/tetherdev/tether/internal/a2aserver"
	"github.com/tetherdev/tether/internal/httpserve"
	"github.com/tetherdev/tether/internal/startup"
)

// Module serves the A2A server while the app runs.
var Module = fx.Module("a2a",
	fx.Provide(LoadProfiles, New),
	fx.Invoke(func(Endpoint) {}),
)

// Profiles are the profiles the server offers, one card each.
type Profiles []a2aserver.Profile

// ProfilesParams are LoadProfiles' dependencies: none reaches Temporal,
// so a bad file stops the app before the embedded server starts.
type ProfilesParams struct {
	fx.In
	Config    configfx.A2AConfig
	Tools     *tools.Registry
	ToolNames []string `group:"tether.tool-names"` // workerfx.ToolNameGroup: MCP servers' grants
	Providers providerfx.Providers
}

// Params are New's dependencies; Profiles first, so they are loaded before
// the client dials.
type Params struct {
	fx.In
	Profiles      Profiles
	Config        configfx.A2AConfig
	Queue         configfx.Queue
	Client        client.Client
	DataConverter converter.DataConverter
	Tools         *tools.Registry
	Lifecycle     fx.Lifecycle
	Logger        *slog.Logger
}

// Endpoint is the A2A server's base URL (its first card's).
type Endpoint struct{ URL string }

// New loads the profiles, binds the address at construction (a port in use
// fails the app before it starts) and serves from start to stop.
func New(p Params) (Endpoint, error) {
	cfg, profiles := p.Config, []a2aserver.Profile(p.Profiles)
	tlsConfig, err := loadTLS(cfg)
	if err != nil {
		return Endpoint{}, err
	}
	ln, err := httpserve.Listen(cfg.Addr, "the A2A server", "--a2a-addr")
	if err != nil {
		return Endpoint{}, err
	}
	url := cfg.URL
	if url == "" {
		url = a2aserver.BaseURL(ln.Addr().String(), tlsConfig != nil)
	}
	opts := []agent.Option{agent.WithDataConverter(p.DataConverter)}
	if p.Queue.NoSearchAttributes {
		opts = append(opts, agent.WithoutSearchAttributes())
	}
	h, err := a2aserver.New(a2aserver.Options{
		Agents: agent.New(p.Client, p.Queue.TaskQueue, opts...), Profiles: profiles, BaseURL: url, Token: cfg.Token,
		Push: a2aserver.PushOptions{Allow: cfg.PushAllow}, Log: p.Logger,
		Describe: func(name string) string {
			if t, ok := p.Tools.Lookup(name); ok {
				return t.Description
			}
			return ""
		},
	})
	if err != nil {
		ln.Close()
		return Endpoint{}, &startup.Error{Problem: "cannot serve A2A (" + err.Error() + ")",
			Fix: "correct --a2a-push-allow (" + configfx.EnvA2APushAllow + "): host names, IP addresses or CIDR prefixes", Err: err}
	}
	// Streams follow a turn until it settles: the app's stop ends them
	// through the base context, then shuts the server down.
	base, stopStreams := context.WithCancel(context.Background())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: httpserve.ReadHeaderTimeout, TLSConfig: tlsConfig,
		BaseContext: func(net.Listener) context.Context { return base }}
	err = httpserve.Run(p.Lifecycle, p.Logger, httpserve.Endpoint{
		Name: "A2A server", Server: srv, Listener: ln, Guard: httpserve.Guard{Hosts: cfg.Hosts},
		Started: func() {
			p.Logger.Info("Serving agents over A2A", "url", url, "card", url+"/.well-known/agent-card.json",
				"profiles", len(profiles), "token", cfg.Token != "")
		},
		Stop: func(ctx context.Context) error { stopStreams(); h.Close(); return srv.Shutdown(ctx) },
	})
	if err != nil {
		stopStreams()
		h.Close()
		ln.Close()
		return Endpoint{}, err
	}
	return Endpoint{URL: url}, nil
}

// LoadProfiles reads --a2a-profiles against this worker's tools and
// providers, or gives the one default profile.
func LoadProfiles(p ProfilesParams) (Profiles, error) {
	cfg := p.Config
	if cfg.Profiles == "" {
		return Profiles{a2aserver.DefaultProfile()}, nil
	}
	known := append(p.Tools.Names(), p.ToolNames...)
	providers := slices.Sorted(maps.Keys(p.Providers.ByName))
	ps, err := a2aserver.LoadProfilesFor(cfg.Profiles, known, providers)
	if err != nil {
		return nil, &startup.Error{Problem: "cannot serve the A2A profiles (" + err.Error() + ")",
			Fix: "correct --a2a-profiles (" + configfx.EnvA2AProfiles + "); README: Agents over A2A shows the format", Err: err}
	}
	return Profiles(ps), nil
}

// loadTLS loads the key pair, or returns nil for plain HTTP.
func loadTLS(cfg configfx.A2AConfig) (*tls.Config, error) {
	if cfg.TLSCert == "" {
		return nil, nil
	}
	c, err := a2aserver.LoadTLS(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, &startup.Error{Problem: "cannot load the A2A server's TLS key pair (" + err.Error() + ")",
			Fix: "point --a2a-tls-cert and --a2a-tls-key at a PEM certificate and its key", Err: err}
	}
	return c, nil
}
