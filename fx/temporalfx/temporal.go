// Package temporalfx provides the Temporal client: to the embedded server
// when one runs in the process, otherwise to any Temporal cluster configured
// through go.temporal.io/sdk/contrib/envconfig (address, namespace, TLS, API
// key, profiles) with --address and --namespace taking precedence.
package temporalfx

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	tlog "go.temporal.io/sdk/log"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/devserver"
	"github.com/tetherdev/tether/internal/startup"
)

// Module provides client.Client, closed with the app.
var Module = fx.Module("temporal", fx.Provide(New))

// Params are New's dependencies. Server is present only with --dev or --demo.
type Params struct {
	fx.In
	Config    configfx.Config
	Server    *devserver.Server `optional:"true"`
	Lifecycle fx.Lifecycle
	Logger    *slog.Logger
}

// NoServerFix is what a worker that finds no Temporal server tells its user.
const NoServerFix = "start one, or run with --dev"

// dialTimeout bounds the first connection, so a wrong address fails fast.
const dialTimeout = 15 * time.Second

// New dials Temporal.
func New(p Params) (client.Client, error) {
	opts, err := options(p)
	if err != nil {
		return nil, err
	}
	opts.Logger = tlog.NewStructuredLogger(p.Logger)
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, startup.Dial(opts.HostPort, err, NoServerFix)
	}
	p.Lifecycle.Append(fx.StopHook(c.Close))
	if !p.Config.NoSearchAttributes && p.Server == nil {
		if err := EnsureSearchAttributes(ctx, c, opts.Namespace); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

func options(p Params) (client.Options, error) {
	if p.Server != nil {
		return client.Options{HostPort: p.Server.HostPort(), Namespace: p.Server.Namespace()}, nil
	}
	opts, err := envconfig.LoadDefaultClientOptions()
	if err != nil {
		return client.Options{}, fmt.Errorf("load Temporal client config: %w", err)
	}
	if p.Config.Address != "" {
		opts.HostPort = p.Config.Address
	}
	if p.Config.Namespace != "" {
		opts.Namespace = p.Config.Namespace
	}
	if opts.HostPort == "" {
		opts.HostPort = client.DefaultHostPort
	}
	if opts.Namespace == "" {
		opts.Namespace = client.DefaultNamespace
	}
	return opts, nil
}
