// Package a2atoolfx gives the worker the remote A2A agents its config file
// names (--a2a-config) as tools: each agent's tool (a2atool.Remote.Tool)
// joins the registry, and "a2a:<name>" is among the tools new agents may
// name. The agents' cards are fetched while the app is built, all at once
// within a2atool.CardTimeout; a card that cannot be fetched leaves its
// tool offered and described as unreachable so far, and is fetched again
// by the tool's next call (see package a2atool). A bad config file stops
// the worker before this (configfx).
package a2atoolfx

import (
	"context"
	"log/slog"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities/a2atool"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/fx/toolfx"
	"github.com/tetherdev/tether/fx/workerfx"
)

// Module provides the configured remote agents' tools.
var Module = fx.Module("a2atool",
	fx.Provide(
		New,
		fx.Annotate(func(rs a2atool.Remotes) []tools.Tool { return rs.Tools() }, fx.ResultTags(`group:"`+toolfx.Group+`,flatten"`)),
		fx.Annotate(a2atool.Config.Grants, fx.ResultTags(`group:"`+workerfx.ToolNameGroup+`,flatten"`)),
	),
)

// New returns the configured remote agents, their cards fetched.
func New(cfg a2atool.Config, log *slog.Logger) a2atool.Remotes {
	rs := make(a2atool.Remotes, 0, len(cfg.Agents))
	for _, name := range cfg.Names() {
		rs = append(rs, a2atool.NewRemote(cfg.Agents[name], log))
	}
	rs.Start(context.Background())
	log.Info("A2A agents configured", "agents", cfg.Names())
	return rs
}
