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
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/internal/startup"
)

// Dialer connects to Temporal; tests pass one that returns an existing client.
type Dialer func(ctx context.Context, opts client.Options) (client.Client, error)

// Starter runs one starter command.
type Starter struct {
	Out, Err io.Writer
	// In is standard input, read by --stdin and a MESSAGE of -; nil has
	// none.
	In   io.Reader
	Dial Dialer
	// Env looks up the codec key variables (os.Getenv in the main); nil
	// configures no keys.
	Env func(string) string
}

// Usage is printed for `starter help` and a command line without a command.
const Usage = `usage: starter [connection flags] COMMAND [flags] ARGS

commands (COMMAND -h prints one command's usage):
  start [--id ID] [--provider P] [--model M] [--system TEXT] [--tools a,b] [--approve a,b] [--wait|--stream] MESSAGE
                                   (--id: letters, digits, '.', '_', '-' and ':'; an ID is never reused;
                                    without --wait or --stream it waits up to 10 s for the agent's
                                    first workflow task and fails if the agent ended in it;
                                    --tools default current_time,calculate; read_file and
                                    list_files need a worker started with --workspace DIR;
                                    mcp:SERVER gives every tool of a server in the worker's
                                    --mcp-config, mcp:SERVER/TOOL one of them;
                                    --approve: tools whose calls wait for approve/deny)
  followup [--no-ack] [--message-id M] ID MESSAGE   queue a message for a turn of its own (wakes the agent)
  steer [--no-ack] [--message-id M] ID MESSAGE      queue a message for the next step (wakes the agent)
  inject [--no-ack] [--message-id M] ID MESSAGE     queue a message for the next step (does not wake)
                                   (--no-ack sends a signal instead of a validated update;
                                    --message-id names the message, so sending it again is safe:
                                    a message ID the agent already accepted is not delivered twice;
                                    --stream prints the model's tokens live until the agent is idle;
                                    --at RFC3339 or --in DURATION delivers it then, by a durable timer)
  MESSAGE of start, followup, steer and inject: the rest of the command line, or
                           --file PATH, or standard input (--stdin, or MESSAGE -); at most 256 KiB
  cancel ID [--cause C] [--keep-inbox]   cancel the open turn (says so when the agent was idle);
                           pending messages are discarded unless --keep-inbox
  status ID [--json]       status, turn, step, model, both inbox lists, what it waits for, children,
                           the calls being retried (activity, attempt, last failure, next attempt);
                           ls, status and tree say one word: idle, running, disposing, starting
                           (no worker has run it), or how it ended (disposed, failed, terminated,
                           canceled, timed-out)
  wait ID                  wait until the agent is idle
  log ID [--json]          print the session transcript (or the raw log)
  compact ID               compact the agent's context while it is idle; prints its size before → after
  dispose ID [--cause C]   end the agent
  ls [--status idle|running] [--model PROVIDER/MODEL] [--parent ID|-] [--turn N]
     [--waiting approval|answer|wait] [--limit N] [--all] [--build ID|any] [--builds]
                           list agents, newest first (--all: closed ones too; --parent -: agents
                           without a parent; past --limit the server keeps open ones first);
                           --build adds the build that drives each and keeps ID's (any: all);
                           --builds counts the agents by build instead (current: where new work goes)
  tree ID                  the agent and every agent under it: status, turn, model, usage
  spawn [--system T] [--profile P] [--model M] [--tools a,b] [--budget SHARE] ID TASK
                           start a detached child of agent ID; its answers reach ID's inbox
  fork ID --at N [--id NEW] [--replace-last TEXT] [--append TEXT]
                           start a new agent from ID's log up to position N (a turn boundary, or
                           a step boundary inside a turn); ID is untouched; prints the new ID;
                           --replace-last gives the last user message TEXT, --append sends TEXT
                           as the fork's first followup
  diff A B                 the conversations of A and B side by side from where they differ
  rewind ID --to-turn K [--by NAME]
                           bring the idle agent back to the end of turn K (0: its start): the model
                           sees that turn's conversation from then on; later turns stay in the log,
                           rewound past; refused while a turn runs, or past a compaction (fork then)
  approve ID CALL [--reason R] [--by NAME] [--args JSON]
                           let a call that waits for approval run; --args runs it with
                           these arguments in place of the model's (checked against the
                           tool's schema; the log keeps both)
  deny ID CALL --reason R [--by NAME]        refuse it; the model reads the reason
  answer ID CALL ANSWER [--by NAME]          answer an ask_human question
  console [--addr HOST:PORT] [--temporal-ui URL]
                           serve the web console (default 127.0.0.1:8280) until interrupted;
                           read-only unless TETHER_CONSOLE_TOKEN is set
  a2a [--addr HOST:PORT] [--url URL] [--tls-cert F --tls-key F] [--profiles FILE]
      [--name N] [--description D] [--tools a,b] [--approve a,b] [--system T] [--provider P] [--model M]
      [--push-allow HOST,IP,CIDR]
                           serve the agents over the Agent2Agent protocol (default 127.0.0.1:8290)
                           until interrupted: a context is an agent, a new one starts with a
                           profile's options (a card each, from --profiles or these flags); every
                           call needs TETHER_A2A_TOKEN when it is set; beyond loopback it needs
                           the token and TLS (or TETHER_A2A_TLS_CERT/TETHER_A2A_TLS_KEY); push
                           notifications reach public addresses only, and what --push-allow names
  deployment [--deployment-name N]
                           the versions of the workers' deployment (--versioning), which is current
                           or ramping, how many open agents run on each and whether it drained
  deployment current BUILD make BUILD current: new agents start on it, agents pinned to another
                           version move to it when they continue as new
  deployment ramp BUILD PERCENT | ramp --clear
                           send PERCENT (0 to 100; 0 pauses) of new agents and of agents continuing
                           as new to BUILD instead of the current version, chosen by agent ID;
                           --clear stops ramping
  deployment rollback      make the version that was current before the current one current again
  upgrade ID | --all [--pace D] [--parallel N]
                           ask an agent to continue as new at its next idle, so it moves to the
                           current version; --all: every open agent of the deployment on a version
                           neither current nor ramping, --pace apart (default 200ms), at most
                           --parallel waiting (default 8), and how many were skipped and why
  blobs gc [--grace D] [--dry-run]
                           delete the blobs of the worker's store (TETHER_BLOB_DIR or
                           TETHER_BLOB_STORE) that no workflow of the namespace references,
                           open or closed within its retention, and that were last stored more
                           than --grace ago (default 1h, at least 1m)

connection flags (defaults from TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, profiles):
  --address HOST:PORT  --namespace NS  --task-queue Q  -v|--verbose (whole errors)
  --stream-ca FILE     CA (PEM) trusted for workers serving live tokens over TLS
                       (default: the system's roots)
  --no-search-attributes  start agents without Tether's search attributes, for a
                       namespace without them (workers run with the same flag);
                       list and tree then find nothing

payload encryption: the worker's keys in TETHER_CODEC_KEYS or TETHER_CODEC_KEY_FILE
(active key TETHER_CODEC_KEY_ID), else the profile's codec endpoint, if any
`

// errNoCommand is a command line without a command: the usage is the answer.
var errNoCommand = fmt.Errorf("%w: no command", ErrUsage)

// usageHint ends a usage error: the whole usage is one command away.
const usageHint = " (run starter without arguments for usage)"

// NoServerFix is what the starter tells a user when no Temporal server answers.
const NoServerFix = "start one (go run ./cmd/worker --dev), or pass --address"

// dialTimeout bounds the connection, so a wrong address fails fast.
const dialTimeout = 15 * time.Second

// Run executes args and returns the process exit code: 0, 1 when the
// command failed, 2 when it could not start (a usage error, or no Temporal
// server), with one line on Err that says what to do.
func (s Starter) Run(ctx context.Context, args []string) int {
	g, err := parseGlobal(args)
	if err == nil {
		err = noBlobStore(s.run(ctx, g))
	}
	return s.exit(err, g.verbose)
}

// exit prints what err means for the user and returns the exit code.
func (s Starter) exit(err error, verbose bool) int {
	var fixable *startup.Error
	var help *helpError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errHelp):
		fmt.Fprint(s.Out, Usage)
		return 0
	case errors.As(err, &help):
		fmt.Fprint(s.Out, commandUsage(help.command))
		return 0
	case errors.Is(err, errNoCommand):
		fmt.Fprint(s.Err, Usage)
		return startup.ExitCode
	case errors.Is(err, ErrUsage):
		return startup.Refuse(s.Err, "starter", errors.New(strings.TrimPrefix(err.Error(), ErrUsage.Error()+": ")+usageHint))
	case errors.As(err, &fixable):
		return startup.Report(s.Err, "starter", err, verbose)
	}
	fmt.Fprintln(s.Err, "starter:", err)
	return 1
}

func (s Starter) run(ctx context.Context, g global) error {
	cmd, ok := commands[g.command]
	if !ok {
		return fmt.Errorf("%w: unknown command %q", ErrUsage, g.command)
	}
	act, err := cmd(s, g.args)
	if err != nil {
		return err
	}
	streams, err := agent.NewStreamClient(agent.StreamClientOptions{CAFile: g.streamCA})
	if err != nil {
		return &startup.Error{Problem: "cannot use --stream-ca " + g.streamCA + " (" + err.Error() + ")",
			Fix: "point it at a PEM file of CA certificates, or leave it out to trust the system's roots", Err: err}
	}
	c, dc, ns, closeBlobs, err := s.connect(ctx, g.address, g.namespace)
	if err != nil {
		return err
	}
	defer closeBlobs()
	defer c.Close()
	opts := []agent.Option{agent.WithDataConverter(dc), agent.WithStreamClient(streams)}
	if g.noAttrs {
		opts = append(opts, agent.WithoutSearchAttributes())
	}
	agents := agent.New(c, g.taskQueue, opts...)
	return act(ctx, env{s: s, agents: agents, conn: conn{c: c, dc: dc, namespace: ns, taskQueue: g.taskQueue, streams: streams, noAttrs: g.noAttrs}})
}

// connect dials Temporal with the data converter the worker uses: local
// codec keys, else the profile's remote codec, else the default. It returns
// the namespace it connected to, and a function closing the blob store.
func (s Starter) connect(ctx context.Context, address, namespace string) (client.Client, converter.DataConverter, string, func(), error) {
	keys, err := s.codecKeys()
	if err != nil {
		return nil, nil, "", nil, err
	}
	opts, err := envconfig.LoadClientOptions(envconfig.LoadClientOptionsRequest{IncludeRemoteCodec: true})
	if err != nil {
		return nil, nil, "", nil, &startup.Error{Problem: "cannot load the Temporal client configuration (" + err.Error() + ")",
			Fix: "check TEMPORAL_* variables and temporal.toml", Err: err}
	}
	if address != "" {
		opts.HostPort = address
	}
	if opts.HostPort == "" {
		opts.HostPort = client.DefaultHostPort
	}
	if namespace != "" {
		opts.Namespace = namespace
	}
	if opts.Namespace == "" {
		opts.Namespace = client.DefaultNamespace
	}
	dc, err := codec.Configure(&opts, keys)
	if err != nil {
		return nil, nil, "", nil, badKeys(err)
	}
	dc, closeBlobs, err := s.blobs(ctx, &opts, dc)
	if err != nil {
		return nil, nil, "", nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	c, err := s.Dial(dctx, opts)
	if err != nil {
		closeBlobs()
		return nil, nil, "", nil, startup.Dial(opts.HostPort, err, NoServerFix)
	}
	return c, dc, opts.Namespace, closeBlobs, nil
}

// codecKeys loads the worker's codec keys from the environment, if any.
func (s Starter) codecKeys() (codec.Config, error) {
	if s.Env == nil {
		return codec.Config{}, nil
	}
	keys, err := codec.SourceFromEnv(s.Env).Load()
	if err != nil {
		return codec.Config{}, badKeys(err)
	}
	return keys, nil
}

// badKeys explains codec keys the starter cannot use.
func badKeys(err error) error {
	return &startup.Error{Problem: "cannot use the codec keys (" + err.Error() + ")",
		Fix: "check " + codec.EnvKeys + ", " + codec.EnvKeyFile + " and " + codec.EnvKeyID, Err: err}
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
	noAttrs   bool // --no-search-attributes
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
	pos, err := parseUpTo(fs, args, names)
	if err == nil && len(pos) != len(names) {
		err = needs(fs, names)
	}
	return pos, err
}

// parseUpTo is parse that returns fewer than len(names) arguments when
// fewer are given.
func parseUpTo(fs *flag.FlagSet, args []string, names []string) ([]string, error) {
	message := names[len(names)-1] == "MESSAGE"
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
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
	if len(pos) > len(names) {
		return nil, fmt.Errorf("%w: %s takes %s, not also %q", ErrUsage, fs.Name(), strings.Join(names, " "), pos[len(names):])
	}
	return pos, nil
}

// parseFlags parses one run of fs's flags: -h or --help asks for the
// command's usage; any other error is a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return &helpError{command: fs.Name()}
	case err != nil:
		return fmt.Errorf("%w: %s: %v", ErrUsage, fs.Name(), err)
	}
	return nil
}

// needs is the usage error of a command given too few arguments.
func needs(fs *flag.FlagSet, names []string) error {
	return fmt.Errorf("%w: %s needs %s", ErrUsage, fs.Name(), strings.Join(names, " "))
}
