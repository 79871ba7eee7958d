package tetherfx

import (
	"context"
	"fmt"
	"io"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/startup"
)

// Run runs the worker process for cfg until a signal or a shutdown ends it
// and returns its exit status: 0, 1 when the worker or the demo failed, or
// startup.ExitCode with one sentence on stderr when it could not start.
// extra adds options (tests supply fakes through them).
func Run(cfg configfx.Config, stderr io.Writer, extra ...fx.Option) int {
	return RunAs("worker", cfg, stderr, extra...)
}

// RunAs is Run for a program named prog, the prefix of what it prints.
func RunAs(prog string, cfg configfx.Config, stderr io.Writer, extra ...fx.Option) int {
	app := fx.New(Worker(cfg, stderr), fx.Options(extra...))
	if err := start(app); err != nil {
		return startup.Report(stderr, prog, err, cfg.Verbose)
	}
	sig := <-app.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), app.StopTimeout())
	defer cancel()
	if err := app.Stop(ctx); err != nil {
		fmt.Fprintln(stderr, prog+": stop:", err)
		if sig.ExitCode == 0 {
			return 1
		}
	}
	return sig.ExitCode
}

// start builds and starts app within its start timeout. fx rolls back the
// hooks that started when one fails.
func start(app *fx.App) error {
	if err := app.Err(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), app.StartTimeout())
	defer cancel()
	return app.Start(ctx)
}
