package tether

import (
	"io"
	"os"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/fx/providerfx"
	"github.com/tetherdev/tether/fx/toolfx"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

// Option configures a Worker.
type Option func(*settings)

// settings is what the Options collect for NewWorker.
type settings struct {
	args      []string
	env       func(string) string
	readEnv   bool
	logs      io.Writer
	tools     []tools.Tool
	hooks     []hook.Hook
	profiles  []workerfx.Profile
	providers map[string]activities.Provider
	provider  string
	defaults  []string
	extra     []fx.Option
}

func newSettings(opts []Option) settings {
	s := settings{env: os.Getenv, logs: os.Stderr}
	for _, o := range opts {
		o(&s)
	}
	if !s.readEnv {
		s.env = func(string) string { return "" }
	}
	return s
}

// FromFlags configures the worker from args (os.Args[1:]) and the
// environment exactly as cmd/worker is: `worker -h` lists both.
func FromFlags(args []string) Option {
	return func(s *settings) { s.args, s.readEnv = args, true }
}

// FromEnv configures the worker from the environment alone, as cmd/worker
// run without flags is (TEMPORAL_ADDRESS, OPENAI_API_KEY, TETHER_*).
// Without FromEnv or FromFlags the environment is not read.
func FromEnv() Option {
	return func(s *settings) { s.readEnv = true }
}

// WithEnv makes FromFlags and FromEnv read getenv instead of os.Getenv.
func WithEnv(getenv func(string) string) Option {
	return func(s *settings) { s.env = getenv }
}

// WithLog sends the worker's log, the help text and startup errors to w
// instead of os.Stderr.
func WithLog(w io.Writer) Option {
	return func(s *settings) { s.logs = w }
}

// WithTools adds tools beside the built-in ones (make them with
// tools.Tool); agents enable them by name (signals.AgentOptions.Tools).
// A tool that does not validate, or one named like another, fails Run.
func WithTools(ts ...tools.Tool) Option {
	return func(s *settings) { s.tools = append(s.tools, ts...) }
}

// WithHooks adds hooks beside the built-in ones; agents enable them by
// name (signals.AgentOptions.Hooks), in the order they name them. Every
// worker of a task queue must offer the same hooks.
func WithHooks(hs ...hook.Hook) Option {
	return func(s *settings) { s.hooks = append(s.hooks, hs...) }
}

// WithDefaultHooks names the hooks, in chain order, that agents whose
// options name none (signals.AgentOptions.Hooks nil) enable, in place of
// the built-in defaults hook.CompactionName, hook.RetryName and
// hook.TurnBudgetName: name those too to keep them. Every worker of a task
// queue must name the same; a run keeps the defaults it started with.
func WithDefaultHooks(names ...string) Option {
	return func(s *settings) { s.defaults = append([]string{}, names...) }
}

// WithProfile adds a kind of child agent spawn_agent may start under name.
// Every worker of a task queue must offer the same profiles.
func WithProfile(name string, p signals.Profile) Option {
	return func(s *settings) { s.profiles = append(s.profiles, workerfx.Profile{Name: name, Profile: p}) }
}

// WithProvider adds a model provider agents choose by name
// (signals.Selection.Provider), or replaces the configured one of that
// name ("scripted", "openai", "anthropic").
func WithProvider(name string, p activities.Provider) Option {
	return func(s *settings) {
		if s.providers == nil {
			s.providers = map[string]activities.Provider{}
		}
		s.providers[name] = p
	}
}

// WithDefaultProvider makes name the provider of agents that name none,
// in place of --provider's: one of the configured providers or one added
// with WithProvider. Run fails on a name the worker does not have.
func WithDefaultProvider(name string) Option {
	return func(s *settings) { s.provider = name }
}

// WithFx adds fx options to the worker's app, for what the other Options
// do not cover (the value groups of package fx/workerfx and fx/toolfx).
// They are not part of the stable API.
func WithFx(opts ...fx.Option) Option {
	return func(s *settings) { s.extra = append(s.extra, opts...) }
}

// fxOptions turns the settings into the worker app's extra options.
func (s settings) fxOptions() []fx.Option {
	var opts []fx.Option
	for _, t := range s.tools {
		opts = append(opts, fx.Supply(fx.Annotate(t, fx.ResultTags(`group:"`+toolfx.Group+`"`))))
	}
	for _, h := range s.hooks {
		opts = append(opts, fx.Supply(fx.Annotate(h, fx.ResultTags(`group:"`+workerfx.HookGroup+`"`))))
	}
	for _, p := range s.profiles {
		opts = append(opts, fx.Supply(fx.Annotate(p, fx.ResultTags(`group:"`+workerfx.ProfileGroup+`"`))))
	}
	if len(s.providers) > 0 || s.provider != "" {
		opts = append(opts, fx.Decorate(s.decorateProviders))
	}
	return append(opts, s.extra...)
}

// decorateProviders adds the WithProvider providers and the default.
func (s settings) decorateProviders(p providerfx.Providers) (providerfx.Providers, error) {
	out := providerfx.Providers{ByName: make(map[string]activities.Provider, len(p.ByName)+len(s.providers)), Default: p.Default}
	for name, v := range p.ByName {
		out.ByName[name] = v
	}
	for name, v := range s.providers {
		out.ByName[name] = v
	}
	if s.provider != "" {
		out.Default = s.provider
	}
	if _, ok := out.ByName[out.Default]; !ok {
		return providerfx.Providers{}, &unknownProvider{name: out.Default}
	}
	return out, nil
}
