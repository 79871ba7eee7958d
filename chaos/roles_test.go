package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
	"github.com/tetherdev/tether/fx/toolfx"
	"github.com/tetherdev/tether/internal/devserver"
)

// The test binary re-executed plays one of two roles, named by envRole.
const (
	envRole    = "TETHER_CHAOS_ROLE" // roleServer or roleWorker
	envDataDir = "TETHER_CHAOS_DATA_DIR"
	envPort    = "TETHER_CHAOS_PORT"
	envJournal = "TETHER_CHAOS_JOURNAL"

	roleServer = "server"
	roleWorker = "worker"

	// readyLine is what the server process prints once it serves.
	readyLine = "chaos server ready"
)

// Pace of the journaled tools: slow is long enough for a kill to land in
// the middle of it often.
const (
	echoPace = 100 * time.Millisecond
	slowPace = 1500 * time.Millisecond
)

// runServer is the server process: the embedded server over SQLite in
// the data directory, on the fixed frontend port, until SIGTERM (or the
// SIGKILL the harness prefers).
func runServer() int {
	port, err := strconv.Atoi(os.Getenv(envPort))
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos server: port:", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	srv, err := devserver.Start(ctx, devserver.Options{DataDir: os.Getenv(envDataDir), GRPCPort: port,
		SearchAttributes: devserver.DefaultSearchAttributes(), LogLevel: "error"})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos server:", err)
		return 1
	}
	fmt.Println(readyLine) // the harness waits for it
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	<-stop
	if err := srv.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "chaos server: stop:", err)
		return 1
	}
	return 0
}

// runWorker is the worker process: the real worker (cmd/worker's fx app)
// with the flags it was given, plus the journaled tools.
func runWorker(args []string) int {
	cfg, err := configfx.Load(args, os.Getenv, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos worker:", err)
		return 2
	}
	dir := os.Getenv(envJournal)
	extra := []fx.Option{}
	for _, t := range []tools.Tool{journaled(dir, "echo", echoPace), journaled(dir, "slow", slowPace)} {
		extra = append(extra, fx.Supply(fx.Annotate(t, fx.ResultTags(`group:"`+toolfx.Group+`"`))))
	}
	return tetherfx.Run(cfg, os.Stderr, extra...)
}

// journaled is a tool that appends "start" before and "done" after its
// work to dir/journal.log, with its idempotency key, process and time, and
// answers "<name> ok <key>" (and its "text" argument, if any).
func journaled(dir, name string, pace time.Duration) tools.Tool {
	return tools.Tool{
		Name: name, Description: "Record the call, work a moment, answer.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
		Run: func(ctx context.Context, c tools.Call) (tools.Result, error) {
			writeJournal(dir, "start", name, c.IdempotencyKey)
			select {
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			case <-time.After(pace):
			}
			var a struct{ Text string }
			_ = json.Unmarshal(c.Arguments, &a)
			writeJournal(dir, "done", name, c.IdempotencyKey)
			out := name + " ok " + c.IdempotencyKey
			if a.Text != "" {
				out += " " + a.Text
			}
			return tools.Result{Content: out}, nil
		},
	}
}

// writeJournal appends one line in a single write, so lines of processes
// killed mid-write never interleave.
func writeJournal(dir, verb, tool, key string) {
	f, err := os.OpenFile(dir+"/journal.log", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	line := fmt.Sprintf("%d %d %s %s %s\n", time.Now().UnixNano(), os.Getpid(), verb, tool, key)
	if _, err := f.WriteString(line); err != nil {
		panic(err)
	}
}
