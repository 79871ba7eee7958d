package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// runConfig is the part of the worker's configuration that decides which
// commands the workflow issues: when to continue as new, whether to write
// search attributes, the tools' execution modes, the default hooks, the
// loop's rules, the child profiles and the stream hooks (which decide
// whether an agent's hook names are all known). It is recorded once per run with a side effect, so a worker
// restarted with other settings (or a newer build) replays every run as it
// ran; new settings take effect from the next run.
type runConfig struct {
	MaxRunTurns        int                         `json:"max_run_turns,omitempty"`
	MaxRunEvents       int                         `json:"max_run_events,omitempty"`
	MaxRunBytes        int                         `json:"max_run_bytes,omitempty"`
	NoSearchAttributes bool                        `json:"no_search_attributes,omitempty"`
	ToolModes          map[string]signals.ToolMode `json:"tool_modes,omitempty"`
	LocalTools         []string                    `json:"local_tools,omitempty"`
	DefaultHooks       []string                    `json:"default_hooks"`
	// Rules are the loop's rules (loop.Rules); absent in runs recorded
	// before they were versioned, which follow loop.Rules1.
	Rules int `json:"rules,omitempty"`
	// IdleTail: the run writes no journal marker for a turn that ends
	// with signals.IdleTail (see idletail.go); absent in runs recorded
	// before, which always write it.
	IdleTail bool `json:"idle_tail,omitempty"`
	// SignalsFirst: an update hands the signals delivered before it to
	// their handlers before it acts (see signalsFirst); absent in runs
	// recorded before, where such a signal reached the loop after the
	// update.
	SignalsFirst bool `json:"signals_first,omitempty"`
	// BareTail: a run that writes no search attributes writes nothing for
	// a plain idle tail either (see idletail.go): its workflow task, which
	// took the model call's answer and carried no journal, stands for it.
	// Absent in runs recorded before, which write a journal marker.
	BareTail bool `json:"bare_tail,omitempty"`
	// Profiles decide whether a spawn starts a child or fails.
	Profiles    map[string]signals.Profile `json:"profiles,omitempty"`
	StreamHooks []string                   `json:"stream_hooks,omitempty"`
	// Tools and Providers decide whether options are refused.
	Tools     []string `json:"tools,omitempty"`
	Providers []string `json:"providers,omitempty"`
	// ModelTruth: a refused select-model signal is recorded as refused
	// (loop.Config.NoteRefusedSelection), and the provider and model the
	// worker resolved for an agent that named none are recorded the first
	// time (see resolveModel). Absent in runs recorded before, which did
	// neither.
	ModelTruth bool `json:"model_truth,omitempty"`
	// EndStatus: a disposed agent's last run sets TetherStatus to
	// signals.EndedDisposed before it completes (see endStatus), so the
	// Temporal UI names its end as every view does. Absent in runs
	// recorded before, which leave it at the last open status.
	EndStatus bool `json:"end_status,omitempty"`
}

// recordRunConfig records cfg's run configuration in history and returns
// what was recorded (on replay: what was recorded then). Runs started before
// this change (version DefaultVersion) keep reading the worker's settings.
func recordRunConfig(ctx workflow.Context, cfg Config) (runConfig, error) {
	var rc runConfig
	current := runConfig{
		MaxRunTurns: cfg.MaxRunTurns, MaxRunEvents: cfg.MaxRunEvents, MaxRunBytes: cfg.MaxRunBytes,
		NoSearchAttributes: cfg.NoSearchAttributes, ToolModes: cfg.ToolModes, DefaultHooks: cfg.DefaultHooks,
		LocalTools: cfg.LocalTools, Rules: int(loop.Latest), IdleTail: true, SignalsFirst: true, Profiles: cfg.Profiles,
		StreamHooks: cfg.StreamHooks, Tools: cfg.Tools, Providers: cfg.Providers, BareTail: cfg.NoSearchAttributes,
		ModelTruth: true, EndStatus: true,
	}
	if workflow.GetVersion(ctx, runConfigChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		current.LocalTools = nil // runs from before local tools ran every tool as an activity
		current.Rules, current.IdleTail, current.SignalsFirst, current.Profiles, current.StreamHooks = 0, false, false, nil, nil
		current.Tools, current.Providers, current.BareTail, current.ModelTruth, current.EndStatus = nil, nil, false, false, false
		return current, nil
	}
	err := workflow.SideEffect(ctx, func(workflow.Context) any { return current }).Get(&rc)
	return rc, err
}

// runConfigChange is the GetVersion change ID of recording the run config.
const runConfigChange = "record-run-config"

// apply puts the recorded settings into cfg.
func (rc runConfig) apply(cfg Config) Config {
	cfg.MaxRunTurns, cfg.MaxRunEvents, cfg.MaxRunBytes = rc.MaxRunTurns, rc.MaxRunEvents, rc.MaxRunBytes
	cfg.NoSearchAttributes, cfg.ToolModes, cfg.DefaultHooks = rc.NoSearchAttributes, rc.ToolModes, rc.DefaultHooks
	cfg.LocalTools, cfg.Profiles, cfg.StreamHooks = rc.LocalTools, rc.Profiles, rc.StreamHooks
	cfg.Tools, cfg.Providers = rc.Tools, rc.Providers
	return cfg
}

// rules are the loop rules the run follows.
func (rc runConfig) rules() loop.Rules {
	if rc.Rules == 0 {
		return loop.Rules1
	}
	return loop.Rules(rc.Rules)
}
