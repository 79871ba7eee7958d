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
	"strconv"
	"strings"
	"time"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities/a2atool"
	"github.com/tetherdev/tether/activities/mcp"
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
)

// Config is everything the worker process is told.
type Config struct {
	TaskQueue string
	// Dev runs an embedded Temporal server on DataDir with the Web UI.
	Dev      bool
	DataDir  string
	GRPCPort int // dev server port; 0 picks a free one
	UIPort   int // dev UI port; 0 = no UI, -1 = a free one
	// MutualTLS makes the embedded server require the client certificate
	// it generates into the data dir (devserver.Options.MutualTLS).
	MutualTLS bool
	// Demo, when non-empty, runs one agent on this prompt, prints its
	// transcript and exits. It implies an embedded server on free ports.
	Demo string
	// Temporal connection for non-dev mode: empty fields fall back to
	// envconfig (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TLS, API key, profiles).
	Address, Namespace string
	// NoSearchAttributes skips registering and writing search attributes.
	NoSearchAttributes bool
	// Verbose shows fx's own log and, when the worker cannot start, the
	// whole error chain above the one sentence.
	Verbose bool

	Stream   StreamConfig
	Provider ProviderConfig
	Tools    ToolsConfig
	Workflow workflows.Config
	Codec    CodecConfig
	Console  ConsoleConfig
	// A2A serves agents over the Agent2Agent protocol beside the console.
	A2A A2AConfig
	// Blob keeps large payloads outside history.
	Blob BlobConfig
	// Caps bound what of a result or reply the model's context takes.
	Caps CapsConfig
	// HeartbeatInterval is the most time between two heartbeat RPCs of one
	// running model or tool call (the worker's MaxHeartbeatThrottleInterval):
	// each costs one request to the server (and one billable action on
	// Temporal Cloud), so it is kept well inside the heartbeat timeout
	// rather than as short as possible.
	HeartbeatInterval time.Duration
	// StickyTimeout is how long a workflow task or query waits for the
	// worker that has the agent cached (the worker's
	// StickyScheduleToStartTimeout) before any worker may take it. After a
	// crash every agent of the dead worker pays it once, in the first log
	// read or workflow task; a worker too busy to take its own tasks in
	// time makes another replay the agent.
	StickyTimeout time.Duration
	// DeadlockTimeout is how long workflow code may run without yielding
	// before the SDK fails the workflow task as a potential deadlock (the
	// worker's DeadlockDetectionTimeout; 0: the SDK's 1 s). A task that
	// fails so is retried and the agent loses nothing, but on a host
	// starved of CPU a replay of a long history can trip it again and
	// again: raise it there.
	DeadlockTimeout time.Duration
	// CachedAgents is how many agents the worker process keeps in memory
	// between their turns (the SDK's sticky workflow cache, shared by the
	// process's workers); an agent pushed out replays its history at its
	// next turn. 0 keeps the SDK's size, 10,000. Each costs its
	// conversation plus ~0.12 MiB (bench/README.md: 10,000 idle agents).
	CachedAgents int
	// MCP is the MCP servers of --mcp-config (TETHER_MCP_CONFIG); none
	// without one.
	MCP mcp.Config
	// A2ATools is the remote A2A agents of --a2a-config
	// (TETHER_A2A_CONFIG) offered as tools; none without one.
	A2ATools a2atool.Config
	// Telemetry: traces and metrics.
	Telemetry TelemetryConfig
	// Versioning is Worker Deployment Versioning (--versioning).
	Versioning VersioningConfig
}

// Crash recovery defaults (bench/README.md has the measured figures).
const (
	// DefaultHeartbeatInterval sends a running call's heartbeat every 2
	// seconds: a dead worker's call (heartbeat timeout 5 s) is noticed
	// within seconds, at half a request per second per running call.
	DefaultHeartbeatInterval = 2 * time.Second
	// DefaultStickyTimeout is Temporal's 5 s cut to 2 s.
	DefaultStickyTimeout = 2 * time.Second
)

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
	// AllowHardLinks lets read_file read files with more than one hard
	// link (tools.WorkspaceOptions.AllowHardLinks): only for a tree its
	// owner hard-linked on purpose.
	AllowHardLinks bool
}

// Load parses args and reads env (os.Getenv in production). With -h it
// prints the flags to stderr and returns flag.ErrHelp; any other error is
// one line that says what to change.
func Load(args []string, env func(string) string, stderr io.Writer) (Config, error) {
	c := Config{TaskQueue: signals.TaskQueue}
	fs, p := flags(&c, env)
	fs.SetOutput(io.Discard)
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		printHelp(stderr, fs)
		return Config{}, err
	case err != nil:
		return Config{}, fmt.Errorf("%v: worker -h lists the flags", err)
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected arguments %q: the worker takes flags only (worker -h lists them)", fs.Args())
	}
	if err := c.resolveConsole(fs, env); err != nil {
		return Config{}, err
	}
	c.resolveA2A(env)
	if err := p.checkDemo(fs, c.Demo); err != nil {
		return Config{}, err
	}
	if !p.demo {
		c.Demo = ""
	}
	if p.demo && c.Tools.Workspace == "" {
		c.Tools.Workspace = "." // the demo agent reads the README.md next to it
	}
	c.Tools.Deny = splitList(p.deny)
	if err := hardLinksFromEnv(fs, env, &c.Tools); err != nil {
		return Config{}, err
	}
	if err := c.Provider.loadKeys(p.keyEnv, env); err != nil {
		return Config{}, err
	}
	c.Workflow.NoSearchAttributes = c.NoSearchAttributes
	c.Workflow.ModelHeartbeat = c.Workflow.ToolHeartbeat
	if err := p.codec.resolve(&c, env); err != nil {
		return Config{}, err
	}
	if err := loadMCP(&c, p.mcpConfig, env); err != nil {
		return Config{}, err
	}
	if err := loadA2A(&c, p.a2aConfig, env); err != nil {
		return Config{}, err
	}
	if err := c.resolveBlob(fs, env); err != nil {
		return Config{}, err
	}
	if err := c.resolveCaps(fs, env); err != nil {
		return Config{}, err
	}
	if err := c.resolveVersioning(fs, env); err != nil {
		return Config{}, err
	}
	return c, c.Validate()
}

// pending holds flag values Load resolves once all flags are parsed.
type pending struct {
	demo         bool
	keyEnv, deny string
	mcpConfig    string
	a2aConfig    string
	codec        codecFlags
}

// checkDemo refuses a --prompt the worker would not run: an empty one
// (the demo would silently be a plain worker), or one without --demo.
func (p *pending) checkDemo(fs *flag.FlagSet, prompt string) error {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "prompt" })
	switch {
	case p.demo && strings.TrimSpace(prompt) == "":
		return errors.New("--prompt must not be empty with --demo: leave it out for the default prompt")
	case set && !p.demo:
		return errors.New("--prompt is the demo agent's prompt: add --demo, or send agents messages with starter")
	}
	return nil
}

// flags declares the worker's flags over c and p.
func flags(c *Config, env func(string) string) (*flag.FlagSet, *pending) {
	p := &pending{}
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.StringVar(&c.TaskQueue, "task-queue", c.TaskQueue, "task queue of agent workflows and activities")
	fs.BoolVar(&c.Dev, "dev", false, "run an embedded Temporal server (SQLite in --data-dir) with the Web UI")
	fs.StringVar(&c.DataDir, "data-dir", DefaultDataDir, "data directory of the embedded server")
	fs.IntVar(&c.GRPCPort, "port", DefaultGRPCPort, "gRPC port of the embedded server")
	fs.IntVar(&c.UIPort, "ui-port", DefaultUIPort, "Web UI port of the embedded server (0 = no UI)")
	fs.BoolVar(&c.MutualTLS, "mutual-tls", false, "the embedded server admits only the client certificate in --data-dir/tls (the Web UI and console then need "+EnvConsoleToken+")")
	fs.BoolVar(&p.demo, "demo", false, "run one demo agent end to end on an embedded server and exit")
	fs.StringVar(&c.Demo, "prompt", DemoPrompt, "prompt of the demo agent")
	fs.StringVar(&c.Address, "address", "", "Temporal frontend host:port (else the temporal.toml profile's, else localhost:7233)")
	fs.StringVar(&c.Namespace, "namespace", "", "Temporal namespace (else the temporal.toml profile's, else default)")
	fs.BoolVar(&c.NoSearchAttributes, "no-search-attributes", false, "do not register or write Tether's search attributes")
	fs.BoolVar(&c.Verbose, "v", false, "shorthand for --verbose")
	fs.BoolVar(&c.Verbose, "verbose", false, "log fx's wiring and print whole startup errors")
	fs.StringVar(&c.Stream.Addr, "stream-addr", "127.0.0.1:0", "address serving live model chunks (Server-Sent Events)")
	fs.StringVar(&c.Stream.URL, "stream-url", "", "base URL clients reach --stream-addr at (default http(s)://<bound address>)")
	fs.StringVar(&c.Stream.TLSCert, "stream-tls-cert", "", "PEM certificate (chain) to serve live model chunks over HTTPS; needs --stream-tls-key")
	fs.StringVar(&c.Stream.TLSKey, "stream-tls-key", "", "PEM private key of --stream-tls-cert")
	fs.IntVar(&c.Stream.MaxSubscribers, "stream-max-subscribers", stream.DefaultMaxSubscribers, "most live stream subscriptions the worker serves at once (then 503)")
	fs.IntVar(&c.Stream.MaxSubscribersPerStream, "stream-max-per-stream", stream.DefaultMaxSubscribersPerStream, "most subscriptions to one model call's stream (then 429)")
	providerFlags(fs, &c.Provider, &p.keyEnv, env)
	fs.StringVar(&c.Tools.Workspace, "workspace", "", "directory read_file and list_files are confined to (default: none, so no file tools; --demo: the current directory)")
	fs.StringVar(&p.deny, "workspace-deny", strings.Join(tools.DefaultDeny(), ","), "comma-separated file name patterns the file tools neither list nor read (empty: none)")
	fs.BoolVar(&c.Tools.AllowHardLinks, "workspace-hard-links", false,
		"read_file reads files with more than one hard link, whose other names may lie outside the workspace (a tree hard-linked on purpose)")
	fs.DurationVar(&c.Workflow.ToolTimeout, "tool-timeout", workflows.DefaultToolTimeout, "tool activity timeout")
	fs.DurationVar(&c.Workflow.ModelTimeout, "model-timeout", workflows.DefaultModelTimeout, "model activity timeout")
	fs.DurationVar(&c.Workflow.ToolHeartbeat, "heartbeat-timeout", workflows.DefaultHeartbeat,
		"model and tool calls whose worker is silent this long run again on another worker")
	fs.DurationVar(&c.HeartbeatInterval, "heartbeat-interval", DefaultHeartbeatInterval,
		"most time between two heartbeat requests of a running call (at most half of --heartbeat-timeout)")
	fs.DurationVar(&c.StickyTimeout, "sticky-timeout", DefaultStickyTimeout,
		"how long an agent's work waits for the worker that has it cached before another worker takes it")
	fs.DurationVar(&c.DeadlockTimeout, "deadlock-timeout", 0,
		"how long workflow code may run without yielding before its workflow task fails as a potential deadlock and is retried (0: the SDK's 1s; raise it on a host starved of CPU)")
	fs.IntVar(&c.CachedAgents, "cached-agents", 0,
		"most agents kept in memory between turns; one pushed out replays its history at its next turn (0: the SDK's 10,000)")
	fs.IntVar(&c.Workflow.MaxRunTurns, "max-run-turns", 0, "continue an agent as new after this many turns in one run (0: when Temporal suggests)")
	fs.IntVar(&c.Workflow.MaxRunEvents, "max-run-events", 0, "continue an agent as new once its run has this many history events (0: when Temporal suggests)")
	fs.StringVar(&p.mcpConfig, "mcp-config", env(EnvMCPConfig), "JSON file of the MCP servers whose tools agents may enable (README: MCP tools)")
	fs.StringVar(&p.a2aConfig, "a2a-config", env(EnvA2AConfig), "JSON file of the remote A2A agents agents may call as tools, a2a:<name> (README: Agents over A2A)")
	consoleFlags(fs, env, &c.Console)
	a2aFlags(fs, env, &c.A2A)
	p.codec.register(fs, env, &c.Codec)
	blobFlags(fs, env, &c.Blob)
	capsFlags(fs, &c.Caps)
	telemetryFlags(fs, &c.Telemetry, env)
	versioningFlags(fs, c)
	return fs, p
}

// EnvWorkspaceHardLinks set to "true" is --workspace-hard-links.
const EnvWorkspaceHardLinks = "TETHER_WORKSPACE_HARD_LINKS"

// hardLinksFromEnv reads EnvWorkspaceHardLinks unless the flag is given.
func hardLinksFromEnv(fs *flag.FlagSet, env func(string) string, t *ToolsConfig) error {
	v := env(EnvWorkspaceHardLinks)
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "workspace-hard-links" })
	if v == "" || given {
		return nil
	}
	allow, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("%s=%q: want true or false", EnvWorkspaceHardLinks, v)
	}
	t.AllowHardLinks = allow
	return nil
}

// EnvA2AConfig names the A2A config file when --a2a-config does not.
const EnvA2AConfig = "TETHER_A2A_CONFIG"

// loadA2A reads the A2A config file, if one is named; its tokens come
// from env.
func loadA2A(c *Config, path string, env func(string) string) error {
	if path == "" {
		return nil
	}
	cfg, err := a2atool.Load(path, env)
	if err != nil {
		return fmt.Errorf("--a2a-config %s: %w", path, err)
	}
	c.A2ATools = cfg
	return nil
}

// EnvMCPConfig names the MCP config file when --mcp-config does not.
const EnvMCPConfig = "TETHER_MCP_CONFIG"

// loadMCP reads the MCP config file, if one is named; its header values
// and server environments come from env.
func loadMCP(c *Config, path string, env func(string) string) error {
	if path == "" {
		return nil
	}
	cfg, err := mcp.Load(path, env)
	if err != nil {
		return fmt.Errorf("--mcp-config %s: %w", path, err)
	}
	c.MCP = cfg
	return nil
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

// Validate checks the configuration once, at the edge. Each error says
// what to change.
func (c Config) Validate() error {
	var errs []error
	if c.TaskQueue == "" {
		errs = append(errs, errors.New("--task-queue must not be empty"))
	}
	if (c.Dev || c.Demo != "") && c.DataDir == "" {
		errs = append(errs, errors.New("--data-dir must not be empty with --dev or --demo"))
	}
	if c.Dev && c.Demo != "" {
		errs = append(errs, errors.New("--dev and --demo cannot be used together: run the demo, then --dev to inspect it"))
	}
	if c.MutualTLS && !c.Dev {
		errs = append(errs, errors.New("--mutual-tls needs --dev: it closes the embedded server"))
	}
	if c.MutualTLS && (c.UIPort != 0 || c.Console.Addr != "") && strings.TrimSpace(c.Console.Token) == "" {
		errs = append(errs, errors.New("--mutual-tls serves the Web UI and the console only behind a login: set "+EnvConsoleToken+
			", or pass --ui-port 0 (and no --console-addr)"))
	}
	errs = append(errs, c.Provider.validate()...)
	if c.Workflow.ToolTimeout < time.Second || c.Workflow.ModelTimeout < time.Second {
		errs = append(errs, errors.New("--tool-timeout and --model-timeout must be at least 1s"))
	}
	if hb := c.Workflow.ToolHeartbeat; hb < time.Second || c.HeartbeatInterval < 100*time.Millisecond || c.HeartbeatInterval > hb/2 {
		errs = append(errs, errors.New("--heartbeat-timeout must be at least 1s and --heartbeat-interval from 100ms to half of it"))
	}
	if c.StickyTimeout < 100*time.Millisecond {
		errs = append(errs, errors.New("--sticky-timeout must be at least 100ms"))
	}
	if c.DeadlockTimeout != 0 && c.DeadlockTimeout < time.Second {
		errs = append(errs, errors.New("--deadlock-timeout must be 0 (the SDK's 1s) or at least 1s"))
	}
	if c.Tools.AllowHardLinks && c.Tools.Workspace == "" {
		errs = append(errs, errors.New("--workspace-hard-links needs --workspace: without one there are no file tools"))
	}
	if c.CachedAgents < 0 {
		errs = append(errs, errors.New("--cached-agents must not be negative (0: the SDK's default)"))
	}
	errs = append(errs, c.validateCodec()...)
	errs = append(errs, c.Blob.validate()...)
	errs = append(errs, c.validateCaps()...)
	errs = append(errs, c.validateVersioning()...)
	errs = append(errs, c.Telemetry.validate()...)
	errs = append(errs, c.validateConsole()...)
	errs = append(errs, c.validateA2A()...)
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

// Embedded reports whether the process runs its own Temporal server.
func (c Config) Embedded() bool { return c.Dev || c.Demo != "" }

// DataPath returns the absolute data directory.
func (c Config) DataPath() (string, error) { return filepath.Abs(c.DataDir) }

// Module supplies the configuration and its parts (parts.go).
func Module(c Config) fx.Option {
	return fx.Module("config",
		fx.Supply(c, c.Provider, c.Tools, c.Workflow, c.Stream, c.MCP, c.A2ATools, c.Telemetry, c.Console, c.A2A, c.Codec, c.Caps, c.Blob, c.Versioning,
			c.Queue(), c.ClientPart(), c.DevPart(), c.DemoPart(), c.Tuning()),
	)
}
