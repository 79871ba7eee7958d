package workflows

import (
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/signals"
)

// Register registers the agent workflow under its durable name.
func Register(r worker.WorkflowRegistry, cfg Config) {
	r.RegisterWorkflowWithOptions(Agent{Config: cfg}.Run, workflow.RegisterOptions{Name: signals.AgentWorkflow})
}
