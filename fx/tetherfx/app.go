// Package tetherfx composes the worker process from the fx modules: the one
// place that decides which modules a configuration needs, and how the
// process runs them and reports a failure to start.
package tetherfx

import (
	"io"
	"log/slog"

	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/tetherdev/tether/fx/a2afx"
	"github.com/tetherdev/tether/fx/a2atoolfx"
	"github.com/tetherdev/tether/fx/codecfx"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/consolefx"
	"github.com/tetherdev/tether/fx/demofx"
	"github.com/tetherdev/tether/fx/devserverfx"
	"github.com/tetherdev/tether/fx/mcpfx"
	"github.com/tetherdev/tether/fx/providerfx"
	"github.com/tetherdev/tether/fx/streamfx"
	"github.com/tetherdev/tether/fx/telemetryfx"
	"github.com/tetherdev/tether/fx/temporalfx"
	"github.com/tetherdev/tether/fx/toolfx"
	"github.com/tetherdev/tether/fx/workerfx"
)

// Worker returns the options of the worker process for cfg, logging to
// logs: an embedded server with --dev or --demo, the demo runner with
// --demo, which logs only errors unless --verbose. fx's own log is kept for
// --verbose; a failure to start is reported once, by Run. It sizes the process's agent cache (a setting of
// the process, not of the app) before returning.
func Worker(cfg configfx.Config, logs io.Writer) fx.Option {
	workerfx.SizeCache(cfg.CachedAgents) // before any worker, the embedded server's included
	level := slog.LevelInfo
	if cfg.Demo != "" && !cfg.Verbose {
		level = slog.LevelError // the transcript is the demo's output; --verbose keeps the log
	}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: level}))
	opts := []fx.Option{
		fx.Supply(logger),
		fx.WithLogger(func() fxevent.Logger { return fxLogger(cfg.Verbose, logs) }),
		configfx.Module(cfg),
		telemetryfx.Module,
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
	if len(cfg.MCP.Servers) > 0 {
		opts = append(opts, mcpfx.Module)
	}
	if len(cfg.A2ATools.Agents) > 0 {
		opts = append(opts, a2atoolfx.Module)
	}
	if cfg.Console.Addr != "" {
		opts = append(opts, consolefx.Module)
	}
	if cfg.A2A.Addr != "" {
		opts = append(opts, a2afx.Module)
	}
	return fx.Options(opts...)
}

// fxLogger shows fx's wiring events only when asked to.
func fxLogger(verbose bool, logs io.Writer) fxevent.Logger {
	if !verbose {
		return fxevent.NopLogger
	}
	return &fxevent.SlogLogger{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
}
