package activities

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/signals"
)

// Register registers the model and tool activities under their durable names.
func Register(r worker.ActivityRegistry, m *Model, t *Tool) {
	r.RegisterActivityWithOptions(m.Call, activity.RegisterOptions{Name: signals.ModelActivity})
	r.RegisterActivityWithOptions(t.Run, activity.RegisterOptions{Name: signals.ToolActivity})
}
