package mcp

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/signals"
)

// Register registers the ListTools activity under its durable name.
func Register(r worker.ActivityRegistry, l *Lister) {
	r.RegisterActivityWithOptions(l.ListTools, activity.RegisterOptions{Name: signals.ListToolsActivity})
}
