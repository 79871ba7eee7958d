// Package tetherfx composes the worker process from the fx modules: the one
// place that decides which modules a configuration needs.
package tetherfx

import (
	"log/slog"
	"os"

	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/tetherdev/tether/fx/codecfx"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/consolefx"
	"github.com/tetherdev/tether/fx/demofx"
	"github.com/tetherdev/tether/fx/devserverfx"
	"github.com/tetherdev/tether/fx/providerfx"
	"github.com/tetherdev/tether/fx/streamfx"
	"github.com/tetherdev/tether/fx/temporalfx"
	"github.com/tetherdev/tether/fx/toolfx"
	"github.com/tetherdev/tether/fx/workerfx"
)

// Worker returns the options of the worker process for cfg: an embedded
// server with --dev or --demo, the demo runner with --demo.
func Worker(cfg configfx.Config) fx.Option {
	level := slog.LevelInfo
	if cfg.Demo != "" {
		level = slog.LevelWarn // the transcript is the demo's output
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	opts := []fx.Option{
		fx.Supply(logger),
		fx.WithLogger(func() fxevent.Logger {
			l := &fxevent.SlogLogger{Logger: logger}
			l.UseLogLevel(slog.LevelDebug)
			return l
		}),
		configfx.Module(cfg),
		temporalfx.Module,
		providerfx.Module,
		streamfx.Module,
		toolfx.Module,
		workerfx.Module,
	}
	if cfg.Embedded() {
		opts = append(opts, devserverfx.Module)
	}
	if cfg.Demo != "" {
		opts = append(opts, demofx.Module)
	}
	if cfg.Codec.Addr != "" {
		opts = append(opts, codecfx.Module)
	}
	if cfg.Console.Addr != "" {
		opts = append(opts, consolefx.Module)
	}
	return fx.Options(opts...)
}
