package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/signals"
)

// Dialer connects to Temporal; tests pass one that returns an existing client.
type Dialer func(ctx context.Context, opts client.Options) (client.Client, error)

// Starter runs one starter command.
type Starter struct {
	Out, Err io.Writer
	Dial     Dialer
	// Env looks up the codec key variables (os.Getenv in the main); nil
	// configures no keys.
	Env func(string) string
}

// Usage is printed for a missing or unknown command.
const Usage = `usage: starter [connection flags] COMMAND [flags] ARGS

commands:
  start [--id ID] [--provider P] [--model M] [--system TEXT] [--tools a,b] [--wait|--stream] MESSAGE
                                   (--tools default current_time,calculate; read_file and
                                    list_files need a worker started with --workspace DIR)
  followup [--no-ack] ID MESSAGE   queue a message for a turn of its own (wakes the agent)
  steer [--no-ack] ID MESSAGE      queue a message for the next step (wakes the agent)
  inject [--no-ack] ID MESSAGE     queue a message for the next step (does not wake)
                                   (--no-ack sends a signal instead of a validated update;
                                    --stream prints the model's tokens live until the agent is idle)
  cancel ID [--cause C] [--keep-inbox]
  status ID [--json]       idle/running, turn, step and both inbox lists
  wait ID                  wait until the agent is idle
  log ID [--json]          print the session transcript (or the raw log)
  compact ID               compact the agent's context while it is idle
  dispose ID [--cause C]   end the agent
  console [--addr HOST:PORT] [--temporal-ui URL]
                           serve the web console (default 127.0.0.1:8280) until interrupted;
                           read-only unless TETHER_CONSOLE_TOKEN is set

connection flags (defaults from TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, profiles):
  --address HOST:PORT  --namespace NS  --task-queue Q
  --stream-ca FILE     CA (PEM) trusted for workers serving live tokens over TLS
                       (default: the system's roots)

payload encryption: the worker's keys in TETHER_CODEC_KEYS or TETHER_CODEC_KEY_FILE
(active key TETHER_CODEC_KEY_ID), else the profile's codec endpoint, if any
`

// ErrUsage marks a command line that could not be parsed.
var ErrUsage = errors.New("usage")

// Run executes args and returns the process exit code.
func (s Starter) Run(ctx context.Context, args []string) int {
	if err := s.run(ctx, args); err != nil {
		fmt.Fprintln(s.Err, "starter:", err)
		if errors.Is(err, ErrUsage) {
			fmt.Fprint(s.Err, Usage)
			return 2
		}
		return 1
	}
	return 0
}

func (s Starter) run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("starter", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	address := fs.String("address", "", "")
	namespace := fs.String("namespace", "", "")
	taskQueue := fs.String("task-queue", signals.TaskQueue, "")
	streamCA := fs.String("stream-ca", "", "")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: no command", ErrUsage)
	}
	cmd, ok := commands[fs.Arg(0)]
	if !ok {
		return fmt.Errorf("%w: unknown command %q", ErrUsage, fs.Arg(0))
	}
	streams, err := agent.NewStreamClient(agent.StreamClientOptions{CAFile: *streamCA})
	if err != nil {
		return err
	}
	c, dc, ns, err := s.connect(ctx, *address, *namespace)
	if err != nil {
		return err
	}
	defer c.Close()
	agents := agent.New(c, *taskQueue, agent.WithDataConverter(dc), agent.WithStreamClient(streams))
	return cmd(ctx, env{s: s, agents: agents, conn: conn{c: c, dc: dc, namespace: ns, taskQueue: *taskQueue, streams: streams}},
		fs.Args()[1:])
}

// connect dials Temporal with the data converter the worker uses: local
// codec keys, else the profile's remote codec, else the default. It returns
// the namespace it connected to.
func (s Starter) connect(ctx context.Context, address, namespace string) (client.Client, converter.DataConverter, string, error) {
	var keys codec.Config
	if s.Env != nil {
		var err error
		if keys, err = codec.SourceFromEnv(s.Env).Load(); err != nil {
			return nil, nil, "", err
		}
	}
	opts, err := envconfig.LoadClientOptions(envconfig.LoadClientOptionsRequest{IncludeRemoteCodec: true})
	if err != nil {
		return nil, nil, "", fmt.Errorf("load Temporal client config: %w", err)
	}
	if address != "" {
		opts.HostPort = address
	}
	if namespace != "" {
		opts.Namespace = namespace
	}
	if opts.Namespace == "" {
		opts.Namespace = client.DefaultNamespace
	}
	dc, err := codec.Configure(&opts, keys)
	if err != nil {
		return nil, nil, "", err
	}
	c, err := s.Dial(ctx, opts)
	if err != nil {
		return nil, nil, "", fmt.Errorf("connect to Temporal: %w", err)
	}
	return c, dc, opts.Namespace, nil
}

// env is what a command works with.
type env struct {
	s      Starter
	agents *agent.Client
	conn   conn
}

// conn is the connection the agents client was made over, for commands
// that need more than agents (the console lists them).
type conn struct {
	c         client.Client
	dc        converter.DataConverter
	namespace string
	taskQueue string
	streams   *http.Client
}

func (e env) printf(format string, args ...any) { fmt.Fprintf(e.s.Out, format, args...) }

func (e env) json(v any) error {
	enc := json.NewEncoder(e.s.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// parse parses a command's flags, which may come before, between or after
// its positional arguments, and returns exactly len(names) of them. A final
// MESSAGE joins all remaining words; flag parsing stops where it starts, so a
// message may contain anything.
func parse(fs *flag.FlagSet, args []string, names ...string) ([]string, error) {
	fs.SetOutput(io.Discard)
	message := names[len(names)-1] == "MESSAGE"
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrUsage, fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 || (message && len(pos) == len(names)-1) {
			break
		}
		pos, args = append(pos, args[0]), args[1:]
	}
	if message && len(args) > 0 {
		pos = append(pos, strings.Join(args, " "))
	}
	if len(pos) != len(names) {
		return nil, fmt.Errorf("%w: %s needs %s", ErrUsage, fs.Name(), strings.Join(names, " "))
	}
	return pos, nil
}
