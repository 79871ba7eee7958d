// Package workerfx runs the Tether worker: the agent workflow and the model
// and tool activities on one task queue. Embedding applications add their
// own workflows or activities through the "tether.register" value group.
package workerfx

import (
	"log/slog"
	"slices"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/providerfx"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// Registration adds workflows or activities to the worker.
type Registration func(worker.Registry)

// Group is the value group of Registrations.
const Group = "tether.register"

// Module provides and runs the worker.
var Module = fx.Module("worker",
	fx.Provide(NewActivities, New),
	fx.Invoke(func(worker.Worker) {}),
)

// Activities are the activity structs, validated when the worker starts,
// and the log reader they share, which the agent workflow publishes its
// log into (workflows.Snapshots).
type Activities struct {
	Model *activities.Model
	Tool  *activities.Tool
	Log   *activities.LogReader
}

// ActivityParams are NewActivities' dependencies; live streams are optional.
type ActivityParams struct {
	fx.In
	Tuning    configfx.WorkerTuning
	Client    client.Client
	Providers providerfx.Providers
	Tools     *tools.Registry
	// Caps holds the model reply's cap (--model-reply-max-bytes).
	Caps    configfx.CapsConfig    `optional:"true"`
	Streams activities.LiveStreams `optional:"true"`
	// MCP runs the calls of MCP servers' tools, when the worker has any.
	MCP activities.MCPCaller `optional:"true"`
	// StreamHooks are the llm/stream hooks agents may enable by name.
	StreamHooks []activities.StreamHook `group:"tether.stream-hooks"`
}

// NewActivities builds the activities over one shared log reader.
func NewActivities(p ActivityParams) (Activities, error) {
	reader := activities.NewLogReader(activities.WorkflowLog{Client: p.Client}, 0)
	reg := p.Tools
	// Record at least as often as heartbeats are sent, so each carries news.
	every := min(activities.DefaultHeartbeatEvery, p.Tuning.HeartbeatInterval)
	a := Activities{
		Model: &activities.Model{Providers: p.Providers.ByName, DefaultProvider: p.Providers.Default, Tools: reg, Log: reader,
			Streams: p.Streams, StreamHooks: map[string]activities.StreamHook{}, HeartbeatEvery: every,
			MaxReplyBytes: p.Caps.ModelReplyBytes},
		Tool: &activities.Tool{Runner: reg, Log: reader, HeartbeatEvery: every, MCP: p.MCP},
		Log:  reader,
	}
	for _, h := range p.StreamHooks {
		a.Model.StreamHooks[h.Name] = h
	}
	if err := a.Model.Validate(); err != nil {
		return Activities{}, err
	}
	return a, a.Tool.Validate()
}

// Profile is a named kind of child agent spawn_agent may start, joined to
// the "tether.profiles" value group: fx.Annotate(f, fx.ResultTags(`group:"tether.profiles"`)).
// Every worker of a task queue must offer the same profiles.
type Profile struct {
	Name string
	signals.Profile
}

// ProfileGroup is the value group of Profiles.
const ProfileGroup = "tether.profiles"

// StreamHookGroup is the value group of llm/stream hooks
// (activities.StreamHook) an application registers.
const StreamHookGroup = "tether.stream-hooks"

// ToolNameGroup is the value group of tool entries the worker offers
// besides its registry's tools: "mcp:<server>" for each MCP server. New
// agents may name them.
const ToolNameGroup = "tether.tool-names"

// HookGroup is the value group of hooks an application registers; agents
// enable them by name.
const HookGroup = "tether.hooks"

// WorkflowConfig completes the agent workflow's configuration with the
// worker's hooks (the default retry policy first, enabled by default) and
// the execution modes of its tools.
func WorkflowConfig(base workflows.Config, hooks []hook.Hook, reg *tools.Registry) workflows.Config {
	defaults, enabled := hook.Defaults()
	base.Hooks = append(defaults, hooks...)
	if base.DefaultHooks == nil {
		base.DefaultHooks = enabled
	}
	base.ToolModes = map[string]signals.ToolMode{}
	base.LocalTools = nil
	base.Tools = reg.Names()
	base.Arguments = reg
	for _, name := range reg.Names() {
		base.ToolModes[name] = signals.ToolMode(reg.Mode(name))
		if reg.Local(name) {
			base.LocalTools = append(base.LocalTools, name)
		}
	}
	return base
}

// Params are New's dependencies.
type Params struct {
	fx.In
	Queue         configfx.Queue
	Tuning        configfx.WorkerTuning
	Workflow      workflows.Config
	Client        client.Client
	Activities    Activities
	Tools         *tools.Registry
	Hooks         []hook.Hook    `group:"tether.hooks"`
	Profiles      []Profile      `group:"tether.profiles"`
	Registrations []Registration `group:"tether.register"`
	ToolNames     []string       `group:"tether.tool-names"`
	Lifecycle     fx.Lifecycle
	Shutdowner    fx.Shutdowner
	Logger        *slog.Logger
	// Observer, when provided, watches every agent run (package telemetry).
	Observer workflows.Observer `optional:"true"`
	// Versioning, when on, runs the worker with Worker Deployment
	// Versioning (versioning.go).
	Versioning configfx.VersioningConfig `optional:"true"`
}

// WorkflowPollers is how the worker polls for workflow tasks: the SDK's
// autoscaling poller, which keeps a poll on the task queue every worker
// serves even while this worker's sticky queue (the agents it holds) has a
// backlog. The SDK's default poller serves the sticky queue first whenever
// it has one, so on a saturated worker a new agent's first turn waited
// behind every running agent's later turns: in the 1,000-agent fleet first
// turns took 38 s at p50 and later ones 0.6 s; with this, both take ~12 s
// and the fleet does 11% more turns a second (bench/README.md).
func WorkflowPollers() worker.PollerBehavior {
	return worker.NewPollerBehaviorAutoscaling(worker.PollerBehaviorAutoscalingOptions{})
}

// SizeCache sets how many agents the process keeps in memory between their
// turns, when n > 0 (--cached-agents). The SDK's sticky cache is the
// process's, shared with the embedded server's own workers, and takes its
// size when the process's first worker is created, which with --dev is
// one of the server's: so call it before the app is built.
func SizeCache(n int) {
	if n > 0 {
		worker.SetStickyWorkflowCacheSize(n)
	}
}

// New registers everything and ties the worker to the app's lifecycle. A
// fatal worker error shuts the app down with exit code 1.
func New(p Params) (worker.Worker, error) {
	deployment, err := deploymentOptions(p.Versioning)
	if err != nil {
		return nil, err
	}
	w := worker.New(p.Client, p.Queue.TaskQueue, worker.Options{
		// The deprecated field is the one that sets the recorded build ID
		// alone: DeploymentOptions also records the deployment's name and
		// versioning behaviour (53 bytes a turn measured, deployment
		// "tether"), only worth it with --versioning (which sets it).
		//lint:ignore SA1019 see above
		BuildID:                      BuildID(),
		DeploymentOptions:            deployment,
		MaxHeartbeatThrottleInterval: p.Tuning.HeartbeatInterval,
		StickyScheduleToStartTimeout: p.Tuning.StickyTimeout,
		DeadlockDetectionTimeout:     p.Tuning.DeadlockTimeout,
		WorkflowTaskPollerBehavior:   WorkflowPollers(),
		OnFatalError: func(err error) {
			p.Logger.Error("Worker failed", "error", err)
			_ = p.Shutdowner.Shutdown(fx.ExitCode(1))
		},
	})
	cfg := WorkflowConfig(p.Workflow, p.Hooks, p.Tools)
	cfg.Tools = append(cfg.Tools, p.ToolNames...)
	slices.Sort(cfg.Tools)
	cfg.Observer = p.Observer
	cfg.Snapshots = p.Activities.Log
	if f, ok := p.Activities.Model.Streams.(workflows.Feeds); ok {
		cfg.Feeds = f
	}
	cfg.Profiles = map[string]signals.Profile{}
	for _, pr := range p.Profiles {
		cfg.Profiles[pr.Name] = pr.Profile
	}
	for name := range p.Activities.Model.StreamHooks {
		cfg.StreamHooks = append(cfg.StreamHooks, name)
	}
	slices.Sort(cfg.StreamHooks)
	for name := range p.Activities.Model.Providers {
		cfg.Providers = append(cfg.Providers, name)
	}
	slices.Sort(cfg.Providers)
	if p.Versioning.On {
		workflows.RegisterVersioned(w, cfg)
	} else {
		workflows.Register(w, cfg)
	}
	activities.Register(w, p.Activities.Model, p.Activities.Tool)
	for _, r := range p.Registrations {
		r(w)
	}
	p.Lifecycle.Append(fx.StartStopHook(w.Start, w.Stop))
	if p.Versioning.On {
		bootstrapCurrent(p.Lifecycle, p.Client, p.Versioning, p.Logger)
	}
	return w, nil
}
