package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// runConfig is the part of the worker's configuration that decides which
// commands the workflow issues: when to continue as new, whether to write
// search attributes, the tools' execution modes, the default hooks, the
// loop's rules, the child profiles and the stream hooks (which decide
// whether an agent's hook names are all known). It is recorded once per
// run with a side effect, so a worker restarted with other settings (or a
// newer build) replays every run as it ran; new settings take effect from
// the next run.
type runConfig struct {
	MaxRunTurns        int                         `json:"max_run_turns,omitempty"`
	MaxRunEvents       int                         `json:"max_run_events,omitempty"`
	MaxRunBytes        int                         `json:"max_run_bytes,omitempty"`
	NoSearchAttributes bool                        `json:"no_search_attributes,omitempty"`
	ToolModes          map[string]signals.ToolMode `json:"tool_modes,omitempty"`
	LocalTools         []string                    `json:"local_tools,omitempty"`
	DefaultHooks       []string                    `json:"default_hooks"`
	// Rules are the loop's rules (loop.Rules): the rules the run follows
	// until it continues as new.
	Rules int `json:"rules,omitempty"`
	// SignalsFirst and BareTail are facts for projection, which reads them
	// from the recorded config: every run's updates hand the signals
	// delivered before them to their handlers first (drainSignals), and a
	// run that writes no search attributes writes nothing for a plain idle
	// tail (see carry.go). The workflow branches on neither.
	SignalsFirst bool `json:"signals_first,omitempty"`
	BareTail     bool `json:"bare_tail,omitempty"`
	// Profiles decide whether a spawn starts a child or fails.
	Profiles    map[string]signals.Profile `json:"profiles,omitempty"`
	StreamHooks []string                   `json:"stream_hooks,omitempty"`
	// Tools and Providers decide whether options are refused.
	Tools     []string `json:"tools,omitempty"`
	Providers []string `json:"providers,omitempty"`
}

// recordRunConfig records cfg's run configuration in history and returns
// what was recorded (on replay: what was recorded then). A run recorded
// before the run config (pre-release builds) fails its workflow task at
// the version check, as does one whose rules this build does not follow
// (see rules): neither replays under rules it did not run by.
func recordRunConfig(ctx workflow.Context, cfg Config) (runConfig, error) {
	var rc runConfig
	current := runConfig{
		MaxRunTurns: cfg.MaxRunTurns, MaxRunEvents: cfg.MaxRunEvents, MaxRunBytes: cfg.MaxRunBytes,
		NoSearchAttributes: cfg.NoSearchAttributes, ToolModes: cfg.ToolModes, DefaultHooks: cfg.DefaultHooks,
		LocalTools: cfg.LocalTools, Rules: int(loop.Latest), SignalsFirst: true, Profiles: cfg.Profiles,
		StreamHooks: cfg.StreamHooks, Tools: cfg.Tools, Providers: cfg.Providers, BareTail: cfg.NoSearchAttributes,
	}
	workflow.GetVersion(ctx, runConfigChange, runConfigRecorded, runConfigRecorded)
	err := workflow.SideEffect(ctx, func(workflow.Context) any { return current }).Get(&rc)
	return rc, err
}

// runConfigChange is the GetVersion change ID of recording the run config;
// runConfigRecorded, its version, is the oldest this build replays. A
// later change to what a run records or decides is guarded by the loop's
// rules (loop.Latest) or a GetVersion of its own.
const (
	runConfigChange   = "record-run-config"
	runConfigRecorded = 1
)

// apply puts the recorded settings into cfg.
func (rc runConfig) apply(cfg Config) Config {
	cfg.MaxRunTurns, cfg.MaxRunEvents, cfg.MaxRunBytes = rc.MaxRunTurns, rc.MaxRunEvents, rc.MaxRunBytes
	cfg.NoSearchAttributes, cfg.ToolModes, cfg.DefaultHooks = rc.NoSearchAttributes, rc.ToolModes, rc.DefaultHooks
	cfg.LocalTools, cfg.Profiles, cfg.StreamHooks = rc.LocalTools, rc.Profiles, rc.StreamHooks
	cfg.Tools, cfg.Providers = rc.Tools, rc.Providers
	return cfg
}

// rules are the loop rules the run follows. Rules this build does not
// follow (a pre-release run's, or a newer build's) panic, which fails the
// workflow task and leaves the run to a worker that follows them.
func (rc runConfig) rules() loop.Rules {
	r := loop.Rules(rc.Rules)
	if r < loop.Baseline || r > loop.Latest {
		panic(fmt.Errorf("%w: the run config records rules %d; this build follows %d to %d",
			loop.ErrUnknownRules, rc.Rules, loop.Baseline, loop.Latest))
	}
	return r
}
