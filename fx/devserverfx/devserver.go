// Package devserverfx runs the embedded Temporal server (SQLite file in the
// data directory, Web UI beside it) for --dev and --demo. Production workers
// do not include this module; they connect to a real cluster.
package devserverfx

import (
	"context"
	"errors"
	"log/slog"
	"syscall"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/fx/codecfx"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/devserver"
	"github.com/tetherdev/tether/internal/startup"
)

// Module provides a started *devserver.Server, stopped with the app.
var Module = fx.Module("devserver", fx.Provide(New))

// Params are New's dependencies. Codec is present when the worker serves
// its payload codec; the Web UI then decodes payloads with it.
type Params struct {
	fx.In
	Config    configfx.DevConfig
	Codec     codecfx.Endpoint `optional:"true"`
	Lifecycle fx.Lifecycle
	Logger    *slog.Logger
}

// New starts the server at construction: the Temporal client needs its
// address. The demo uses free ports and no UI, so it can run while nothing
// else is listening; --dev uses the configured ports and the UI, which with
// --mutual-tls serves only after a login with the console's token.
func New(p Params) (*devserver.Server, error) {
	dir, err := p.Config.DataPath()
	if err != nil {
		return nil, err
	}
	opts := devserver.Options{DataDir: dir, GRPCPort: p.Config.GRPCPort, UIPort: p.Config.UIPort,
		SearchAttributes: devserver.DefaultSearchAttributes(), CodecEndpoint: p.Codec.URL, MutualTLS: p.Config.MutualTLS}
	if opts.MutualTLS {
		// The UI holds the client certificate: it asks for the console's
		// token, as the console does.
		opts.UIToken = p.Config.UIToken
	}
	if p.Config.Demo {
		opts.GRPCPort, opts.UIPort = 0, 0
	}
	srv, err := devserver.Start(context.Background(), opts)
	if err != nil {
		return nil, explain(dir, err)
	}
	p.Logger.Info("Embedded Temporal server started", "address", srv.HostPort(), "namespace", srv.Namespace(),
		"ui", srv.UIAddress(), "data_dir", dir)
	p.Lifecycle.Append(fx.StopHook(srv.Stop))
	return srv, nil
}

// explain says what to do when the embedded server cannot start for a
// reason the user can fix; other errors pass through.
func explain(dir string, err error) error {
	switch {
	case errors.Is(err, devserver.ErrDataDirInUse):
		return &startup.Error{Problem: "data directory " + dir + " is in use by another worker",
			Fix: "stop the other worker --dev or --demo, or pass another --data-dir", Err: err}
	case errors.Is(err, devserver.ErrIncompatibleDataDir):
		return &startup.Error{Problem: "data directory " + dir + " was written by another Temporal server release",
			Fix: "move it away (nothing was deleted), or pass another --data-dir", Err: err}
	case errors.Is(err, syscall.EADDRINUSE):
		return &startup.Error{Problem: "the embedded Temporal server cannot listen (" + err.Error() + ")",
			Fix: "stop what listens there (another worker --dev?), or choose other ports with --port and --ui-port", Err: err}
	}
	return err
}
