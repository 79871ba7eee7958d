// Package mcpfx gives the worker the tools of the MCP servers its config
// file names (--mcp-config): one session manager, closed when the worker
// stops; the ListTools activity; the caller the tool activity sends MCP
// calls to; and "mcp:<server>" among the tools new agents may name.
package mcpfx

import (
	"log/slog"

	"go.temporal.io/sdk/worker"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/workerfx"
)

// Module provides the MCP tools of the configured servers.
var Module = fx.Module("mcp",
	fx.Provide(
		New,
		func(m *mcp.Manager, caps configfx.CapsConfig) activities.MCPCaller {
			return &mcp.Caller{Sessions: m, MaxResultBytes: caps.MCPResultBytes} // --mcp-result-max-bytes
		},
		fx.Annotate(registration, fx.ResultTags(`group:"`+workerfx.Group+`"`)),
		fx.Annotate(mcp.Config.Grants, fx.ResultTags(`group:"`+workerfx.ToolNameGroup+`,flatten"`)),
	),
)

// New returns the worker's session manager; stopping the worker closes
// every session and stops the stdio servers.
func New(cfg mcp.Config, lc fx.Lifecycle, log *slog.Logger) *mcp.Manager {
	m := mcp.NewManager(cfg, log)
	lc.Append(fx.StopHook(m.Close))
	log.Info("MCP servers configured", "servers", cfg.Names())
	return m
}

// registration registers the ListTools activity.
func registration(m *mcp.Manager) workerfx.Registration {
	l := &mcp.Lister{Sessions: m}
	return func(r worker.Registry) { mcp.Register(r, l) }
}
