package tether

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync/atomic"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
	"github.com/tetherdev/tether/internal/startup"
)

// Worker is a configured agent worker, ready to run once.
type Worker struct {
	cfg  configfx.Config
	logs io.Writer
	fx   []fx.Option
	ran  atomic.Bool
}

// NewWorker configures a worker: by default as `worker` with no flags
// would be (a Temporal server at the temporal.toml profile's address, else
// localhost:7233, the scripted model unless a provider is configured), with
// the flags and environment of cmd/worker when given FromFlags or FromEnv.
// A flag or configuration error says what to change; with -h it prints the
// flags and returns an error that errors.Is flag.ErrHelp.
func NewWorker(opts ...Option) (*Worker, error) {
	s := newSettings(opts)
	cfg, err := configfx.Load(s.args, s.env, s.logs)
	if err != nil {
		return nil, err
	}
	if s.defaults != nil {
		cfg.Workflow.DefaultHooks = s.defaults
	}
	return &Worker{cfg: cfg, logs: s.logs, fx: s.fxOptions()}, nil
}

// Run runs the worker until ctx ends, the process gets SIGINT or SIGTERM,
// or the worker fails, then stops it. It returns nil after a clean stop;
// a failure to start is an error whose text is one sentence saying what to
// do (the cause follows it, in parentheses, where there is one).
func (w *Worker) Run(ctx context.Context) error {
	if w.ran.Swap(true) {
		return ErrRan
	}
	app := fx.New(tetherfx.Worker(w.cfg, w.logs), fx.Options(w.fx...))
	if err := start(ctx, app); err != nil {
		return errors.New(startup.Explain(err))
	}
	code := 0
	select {
	case sig := <-app.Wait():
		code = sig.ExitCode
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), app.StopTimeout())
	defer cancel()
	if err := app.Stop(stop); err != nil {
		return fmt.Errorf("tether: stop worker: %w", err)
	}
	if code != 0 {
		return fmt.Errorf("tether: the worker failed (exit status %d): its log says why", code)
	}
	return nil
}

// start builds and starts app within its start timeout and ctx.
func start(ctx context.Context, app *fx.App) error {
	if err := app.Err(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, app.StartTimeout())
	defer cancel()
	return app.Start(ctx)
}

// Main runs the worker as cmd/worker does and returns the process's exit
// status: 0 after a clean stop (or -h), 1 when the worker failed, 2 with
// one sentence on the log writer, prefixed "prog: ", when it could not be
// configured or started (the whole error chain too with --verbose).
//
//	func main() { os.Exit(tether.Main("myworker", tether.FromFlags(os.Args[1:]), tether.WithTools(t))) }
func Main(prog string, opts ...Option) int {
	s := newSettings(opts)
	w, err := NewWorker(opts...)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return startup.Refuse(s.logs, prog, err)
	}
	w.ran.Store(true)
	return tetherfx.RunAs(prog, w.cfg, w.logs, w.fx...)
}
