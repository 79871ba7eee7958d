// Package configfx holds the worker's typed configuration: parsed once at the
// edge from flags and environment, validated, then supplied to the other fx
// modules. Nothing below fx/ and cmd/ reads the environment.
package configfx

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// Defaults.
const (
	DefaultDataDir  = ".tether"
	DefaultGRPCPort = 7233
	DefaultUIPort   = 8233
	DemoPrompt      = "What time is it, what is in README.md, and what is 17*23?"
	// DefaultConsoleAddr is where --dev serves the web console.
	DefaultConsoleAddr = "127.0.0.1:8280"
	// EnvConsoleToken holds the console's operator token.
	EnvConsoleToken = "TETHER_CONSOLE_TOKEN"
)

// Config is everything the worker process is told.
type Config struct {
	TaskQueue string
	// Dev runs an embedded Temporal server on DataDir with the Web UI.
	Dev      bool
	DataDir  string
	GRPCPort int // dev server port; 0 picks a free one
	UIPort   int // dev UI port; 0 = no UI, -1 = a free one
	// Demo, when non-empty, runs one agent on this prompt, prints its
	// transcript and exits. It implies an embedded server on free ports.
	Demo string
	// Temporal connection for non-dev mode: empty fields fall back to
	// envconfig (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TLS, API key, profiles).
	Address, Namespace string
	// NoSearchAttributes skips registering and writing search attributes.
	NoSearchAttributes bool
	Stream             StreamConfig
	Provider           ProviderConfig
	Tools              ToolsConfig
	Workflow           workflows.Config
	Codec              CodecConfig
	Console            ConsoleConfig
}

// ConsoleConfig configures the web console --dev serves beside the Web UI.
type ConsoleConfig struct {
	// Addr is where it listens; empty serves none. With --dev and the Web
	// UI it defaults to DefaultConsoleAddr.
	Addr string
	// Token is the operator token (TETHER_CONSOLE_TOKEN); empty keeps the
	// console read-only.
	Token string
}

// ProviderConfig selects and configures model providers. The API key comes
// from the environment only and never leaves the worker.
type ProviderConfig struct {
	// Default is "scripted", "openai" or "anthropic"; empty picks the first
	// configured of openai and anthropic, else the scripted model.
	Default          string
	OpenAIBaseURL    string
	OpenAIAPIKey     string
	OpenAIModel      string
	AnthropicBaseURL string
	AnthropicAPIKey  string
	AnthropicModel   string
}

// StreamConfig configures the endpoint serving live model chunks.
type StreamConfig struct {
	// Addr is where the worker serves them; URL is the base URL clients
	// reach it at (default http://, or https:// with TLS, and the bound
	// address).
	Addr, URL string
	// TLSCert and TLSKey are PEM files: both set serves HTTPS, neither
	// plain HTTP (for loopback, or behind a proxy that terminates TLS).
	TLSCert, TLSKey string
	// MaxSubscribers bounds the open subscriptions of the worker, and
	// MaxSubscribersPerStream those of one model call.
	MaxSubscribers, MaxSubscribersPerStream int
}

// TLS reports whether the endpoint serves HTTPS.
func (c StreamConfig) TLS() bool { return c.TLSCert != "" }

// ToolsConfig configures built-in tools.
type ToolsConfig struct {
	// Workspace confines read_file and list_files. Empty (the default)
	// registers neither: no directory is safe to expose unasked, least of
	// all the worker's current one. The demo alone defaults it to the
	// directory it runs in, whose README.md it reads.
	Workspace string
	// Deny lists the file name patterns the file tools withhold (see
	// tools.WorkspaceOptions.Deny); empty withholds nothing.
	Deny []string
}

// Load parses args and reads env (os.Getenv in production).
func Load(args []string, env func(string) string, stderr io.Writer) (Config, error) {
	c := Config{TaskQueue: signals.TaskQueue}
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.TaskQueue, "task-queue", c.TaskQueue, "task queue of agent workflows and activities")
	fs.BoolVar(&c.Dev, "dev", false, "run an embedded Temporal server (SQLite in --data-dir) with the Web UI")
	fs.StringVar(&c.DataDir, "data-dir", DefaultDataDir, "data directory of the embedded server")
	fs.IntVar(&c.GRPCPort, "port", DefaultGRPCPort, "gRPC port of the embedded server")
	fs.IntVar(&c.UIPort, "ui-port", DefaultUIPort, "Web UI port of the embedded server (0 = no UI)")
	demo := fs.Bool("demo", false, "run one demo agent end to end on an embedded server and exit")
	fs.StringVar(&c.Demo, "prompt", DemoPrompt, "prompt of the demo agent")
	fs.StringVar(&c.Address, "address", "", "Temporal frontend host:port (default from TEMPORAL_ADDRESS or profile)")
	fs.StringVar(&c.Namespace, "namespace", "", "Temporal namespace (default from TEMPORAL_NAMESPACE or profile)")
	fs.BoolVar(&c.NoSearchAttributes, "no-search-attributes", false, "do not register or write Tether's search attributes")
	fs.StringVar(&c.Stream.Addr, "stream-addr", "127.0.0.1:0", "address serving live model chunks (Server-Sent Events)")
	fs.StringVar(&c.Stream.URL, "stream-url", "", "base URL clients reach --stream-addr at (default http(s)://<bound address>)")
	fs.StringVar(&c.Stream.TLSCert, "stream-tls-cert", "", "PEM certificate (chain) to serve live model chunks over HTTPS; needs --stream-tls-key")
	fs.StringVar(&c.Stream.TLSKey, "stream-tls-key", "", "PEM private key of --stream-tls-cert")
	fs.IntVar(&c.Stream.MaxSubscribers, "stream-max-subscribers", stream.DefaultMaxSubscribers, "most live stream subscriptions the worker serves at once (then 503)")
	fs.IntVar(&c.Stream.MaxSubscribersPerStream, "stream-max-per-stream", stream.DefaultMaxSubscribersPerStream, "most subscriptions to one model call's stream (then 429)")
	fs.StringVar(&c.Provider.Default, "provider", env("TETHER_PROVIDER"), "default model provider: scripted, openai or anthropic")
	fs.StringVar(&c.Provider.OpenAIBaseURL, "openai-base-url", envOr(env, "OPENAI_BASE_URL", ""), "OpenAI-compatible base URL")
	fs.StringVar(&c.Provider.OpenAIModel, "openai-model", envOr(env, "OPENAI_MODEL", "gpt-4o-mini"), "default OpenAI-compatible model")
	fs.StringVar(&c.Provider.AnthropicBaseURL, "anthropic-base-url", envOr(env, "ANTHROPIC_BASE_URL", ""), "Anthropic API base URL")
	fs.StringVar(&c.Provider.AnthropicModel, "anthropic-model", envOr(env, "ANTHROPIC_MODEL", "claude-sonnet-4-5"), "default Anthropic model")
	fs.StringVar(&c.Tools.Workspace, "workspace", "", "directory read_file and list_files are confined to (default: none, so no file tools; --demo: the current directory)")
	deny := fs.String("workspace-deny", strings.Join(tools.DefaultDeny(), ","), "comma-separated file name patterns the file tools neither list nor read (empty: none)")
	fs.DurationVar(&c.Workflow.ToolTimeout, "tool-timeout", workflows.DefaultToolTimeout, "tool activity timeout")
	fs.DurationVar(&c.Workflow.ModelTimeout, "model-timeout", workflows.DefaultModelTimeout, "model activity timeout")
	fs.IntVar(&c.Workflow.MaxRunTurns, "max-run-turns", 0, "continue an agent as new after this many turns in one run (0: when Temporal suggests)")
	fs.IntVar(&c.Workflow.MaxRunEvents, "max-run-events", 0, "continue an agent as new once its run has this many history events (0: when Temporal suggests)")
	fs.StringVar(&c.Console.Addr, "console-addr", DefaultConsoleAddr, "address of the web console --dev serves beside the Web UI (empty: none; "+EnvConsoleToken+" enables actions)")
	var cf codecFlags
	cf.register(fs, env, &c.Codec)
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	c.resolveConsole(fs, env)
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if !*demo {
		c.Demo = ""
	}
	if *demo && c.Tools.Workspace == "" {
		c.Tools.Workspace = "." // the demo agent reads the README.md next to it
	}
	c.Tools.Deny = splitList(*deny)
	c.Provider.OpenAIAPIKey = env("OPENAI_API_KEY")
	c.Provider.AnthropicAPIKey = env("ANTHROPIC_API_KEY")
	c.Workflow.NoSearchAttributes = c.NoSearchAttributes
	if err := cf.resolve(&c, env); err != nil {
		return Config{}, err
	}
	return c, c.Validate()
}

// resolveConsole serves the console beside the Web UI: with --dev and a UI,
// unless --console-addr says otherwise (a free port when the UI takes
// one).
func (c *Config) resolveConsole(fs *flag.FlagSet, env func(string) string) {
	c.Console.Token = env(EnvConsoleToken)
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "console-addr" })
	switch {
	case set:
	case !c.Dev || c.UIPort == 0:
		c.Console.Addr = ""
	case c.UIPort < 0:
		c.Console.Addr = "127.0.0.1:0"
	}
}

// splitList splits a comma-separated flag value; empty is an empty,
// non-nil list.
func splitList(v string) []string {
	out := []string{}
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func envOr(env func(string) string, key, def string) string {
	if v := env(key); v != "" {
		return v
	}
	return def
}

// Validate checks the configuration once, at the edge.
func (c Config) Validate() error {
	var errs []error
	if c.TaskQueue == "" {
		errs = append(errs, errors.New("--task-queue must not be empty"))
	}
	if (c.Dev || c.Demo != "") && c.DataDir == "" {
		errs = append(errs, errors.New("--data-dir must not be empty with --dev or --demo"))
	}
	if c.Dev && c.Demo != "" {
		errs = append(errs, errors.New("--dev and --demo are exclusive: run the demo, then --dev to inspect it"))
	}
	switch c.Provider.Default {
	case "", "scripted", "openai", "anthropic":
	default:
		errs = append(errs, fmt.Errorf("--provider %q: want scripted, openai or anthropic", c.Provider.Default))
	}
	for _, f := range []struct{ flag, url string }{
		{"--openai-base-url", c.Provider.OpenAIBaseURL}, {"--anthropic-base-url", c.Provider.AnthropicBaseURL},
	} {
		if p, err := url.Parse(f.url); f.url != "" && (err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "") {
			errs = append(errs, fmt.Errorf("%s %q is not an http(s) URL", f.flag, f.url))
		}
	}
	if c.Provider.Default == "openai" && !c.OpenAIConfigured() {
		errs = append(errs, errors.New("--provider openai needs OPENAI_API_KEY or --openai-base-url"))
	}
	if c.Provider.Default == "anthropic" && !c.AnthropicConfigured() {
		errs = append(errs, errors.New("--provider anthropic needs ANTHROPIC_API_KEY or --anthropic-base-url"))
	}
	if c.Workflow.ToolTimeout < time.Second || c.Workflow.ModelTimeout < time.Second {
		errs = append(errs, errors.New("activity timeouts must be at least 1s"))
	}
	errs = append(errs, c.validateCodec()...)
	if c.Console.Addr != "" && !c.Dev {
		errs = append(errs, errors.New("--console-addr needs --dev; against a cluster, run `starter console`"))
	}
	return errors.Join(append(errs, c.Stream.validate()...)...)
}

func (c StreamConfig) validate() []error {
	var errs []error
	if (c.TLSCert == "") != (c.TLSKey == "") {
		errs = append(errs, errors.New("--stream-tls-cert and --stream-tls-key go together"))
	}
	if c.URL != "" {
		p, err := url.Parse(c.URL)
		switch {
		case err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "":
			errs = append(errs, fmt.Errorf("--stream-url %q is not an http(s) URL", c.URL))
		case c.TLS() && p.Scheme != "https":
			errs = append(errs, fmt.Errorf("--stream-url %q must be https:// when the worker serves TLS", c.URL))
		}
	}
	if c.MaxSubscribers < 1 || c.MaxSubscribersPerStream < 1 {
		errs = append(errs, errors.New("--stream-max-subscribers and --stream-max-per-stream must be at least 1"))
	}
	return errs
}

// OpenAIConfigured reports whether an OpenAI-compatible endpoint is usable.
func (c Config) OpenAIConfigured() bool {
	return c.Provider.OpenAIAPIKey != "" || c.Provider.OpenAIBaseURL != ""
}

// AnthropicConfigured reports whether the Anthropic API is usable.
func (c Config) AnthropicConfigured() bool {
	return c.Provider.AnthropicAPIKey != "" || c.Provider.AnthropicBaseURL != ""
}

// Embedded reports whether the process runs its own Temporal server.
func (c Config) Embedded() bool { return c.Dev || c.Demo != "" }

// DataPath returns the absolute data directory.
func (c Config) DataPath() (string, error) { return filepath.Abs(c.DataDir) }

// Module supplies the configuration and its parts.
func Module(c Config) fx.Option {
	return fx.Module("config",
		fx.Supply(c, c.Provider, c.Tools, c.Workflow, c.Stream),
	)
}
