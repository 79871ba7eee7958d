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

// RegisterVersioned registers the agent workflow for a worker that runs
// with Worker Deployment Versioning (worker.DeploymentOptions with
// UseVersioning): each run is Pinned to the version that started it, so a
// deploy never replays a running agent on other code, and its
// Continue-As-New (at a turn boundary, see continue.go) starts the next run
// AutoUpgrade: on the deployment's current version.
func RegisterVersioned(r worker.WorkflowRegistry, cfg Config) {
	r.RegisterWorkflowWithOptions(Agent{Config: cfg, Versioned: true}.Run,
		workflow.RegisterOptions{Name: signals.AgentWorkflow, VersioningBehavior: workflow.VersioningBehaviorPinned})
}
