package workflows

import (
	"bytes"
	"encoding/json"
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
	MaxRunTurns  int `json:"max_run_turns,omitempty"`
	MaxRunEvents int `json:"max_run_events,omitempty"`
	MaxRunBytes  int `json:"max_run_bytes,omitempty"`
	// UpgradeAfterTurns is recorded only when set (a versioned worker's
	// --upgrade-after-turns): builds before it refuse such a run by the
	// strict decode, as they do by its rules.
	UpgradeAfterTurns  int                         `json:"upgrade_after_turns,omitempty"`
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
// (see rules) or whose config holds a field this build does not know
// (decodeRunConfig): none replays under rules it did not run by.
func recordRunConfig(ctx workflow.Context, cfg Config, b build) (runConfig, error) {
	current := runConfig{
		MaxRunTurns: cfg.MaxRunTurns, MaxRunEvents: cfg.MaxRunEvents, MaxRunBytes: cfg.MaxRunBytes,
		UpgradeAfterTurns: cfg.UpgradeAfterTurns, NoSearchAttributes: cfg.NoSearchAttributes, ToolModes: cfg.ToolModes, DefaultHooks: cfg.DefaultHooks,
		LocalTools: cfg.LocalTools, Rules: int(b.latest()), SignalsFirst: true, Profiles: cfg.Profiles,
		StreamHooks: cfg.StreamHooks, Tools: cfg.Tools, Providers: cfg.Providers, BareTail: cfg.NoSearchAttributes,
	}
	recorded := b.record(current)
	workflow.GetVersion(ctx, runConfigChange, runConfigRecorded, runConfigRecorded)
	var raw json.RawMessage
	if err := workflow.SideEffect(ctx, func(workflow.Context) any { return recorded }).Get(&raw); err != nil {
		return runConfig{}, err
	}
	rc, err := b.decode(raw)
	if err != nil {
		panic(err) // fails the workflow task, records nothing: see rules
	}
	return rc, nil
}

// decode reads a recorded run config strictly: a field this build does
// not know was recorded by a newer build, whose run decides by it, so the
// run is refused like unknown rules rather than replayed without it.
func (b build) decode(raw []byte) (runConfig, error) {
	var rc runConfig
	if len(b.Extra) > 0 { // a newer build knows its own fields
		m := map[string]json.RawMessage{}
		if err := json.Unmarshal(raw, &m); err != nil {
			return runConfig{}, err
		}
		for _, f := range b.Extra {
			delete(m, f.Name)
		}
		var err error
		if raw, err = json.Marshal(m); err != nil {
			return runConfig{}, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rc); err != nil {
		return runConfig{}, fmt.Errorf("%w: the run config does not decode (%v); this build follows %d to %d",
			loop.ErrUnknownRules, err, loop.Baseline, b.latest())
	}
	return rc, nil
}

// build is what a build records and follows; the zero value is this
// build. Tests set it to stand for an older build (a lower latest) or a
// newer one (fields this build's run config does not have), so that two
// builds run on one task queue in one process.
type build struct {
	// Latest is the newest rules the build follows and records; zero
	// means loop.Latest.
	Latest loop.Rules
	// Extra fields the build records in the run config besides its own.
	Extra []extraField
}

// extraField is a run config field a newer build records.
type extraField struct {
	Name  string
	Value any
}

func (b build) latest() loop.Rules {
	if b.Latest == 0 {
		return loop.Latest
	}
	return b.Latest
}

// record is the value the run config's side effect records: rc itself,
// or with the build's extra fields, a map of both.
func (b build) record(rc runConfig) any {
	if len(b.Extra) == 0 {
		return rc
	}
	data, err := json.Marshal(rc)
	if err != nil {
		panic(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(data, &m); err != nil {
		panic(err)
	}
	for _, f := range b.Extra {
		m[f.Name] = f.Value
	}
	return m
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
	cfg.UpgradeAfterTurns = rc.UpgradeAfterTurns
	cfg.NoSearchAttributes, cfg.ToolModes, cfg.DefaultHooks = rc.NoSearchAttributes, rc.ToolModes, rc.DefaultHooks
	cfg.LocalTools, cfg.Profiles, cfg.StreamHooks = rc.LocalTools, rc.Profiles, rc.StreamHooks
	cfg.Tools, cfg.Providers = rc.Tools, rc.Providers
	return cfg
}

// rules are the loop rules the run follows. Rules the build does not
// follow (a pre-release run's, or a newer build's) panic, which fails the
// workflow task and leaves the run to a worker that follows them.
func (rc runConfig) rules(b build) loop.Rules {
	r := loop.Rules(rc.Rules)
	if r < loop.Baseline || r > b.latest() {
		panic(fmt.Errorf("%w: the run config records rules %d; this build follows %d to %d",
			loop.ErrUnknownRules, rc.Rules, loop.Baseline, b.latest()))
	}
	return r
}
