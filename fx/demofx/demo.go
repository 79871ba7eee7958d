// Package demofx runs the one-command demo: once the worker is up it starts
// one agent on the demo prompt with every built-in tool, waits until the
// agent is idle, prints its transcript and shuts the app down (exit 0, or 1
// when the demo fails).
package demofx

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/providerfx"
	"github.com/tetherdev/tether/signals"
)

// Module runs the demo after the worker has started.
var Module = fx.Module("demo", fx.Invoke(Register))

// Timeout bounds the whole demo.
const Timeout = 2 * time.Minute

// Params are Register's dependencies; Worker orders the demo after it.
type Params struct {
	fx.In
	Config     configfx.DemoConfig
	Queue      configfx.Queue
	Client     client.Client
	Converter  converter.DataConverter
	Providers  providerfx.Providers
	Tools      *tools.Registry
	Worker     worker.Worker
	Lifecycle  fx.Lifecycle
	Shutdowner fx.Shutdowner
	Logger     *slog.Logger
	// Out receives the transcript; standard output when absent.
	Out io.Writer `name:"demo.out" optional:"true"`
}

// Register schedules the demo run on start.
func Register(p Params) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	p.Lifecycle.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				code := 0
				out := p.Out
				if out == nil {
					out = os.Stdout
				}
				if err := Run(ctx, p, out); err != nil {
					p.Logger.Error("Demo failed", "error", err)
					code = 1
				}
				_ = p.Shutdowner.Shutdown(fx.ExitCode(code))
			}()
			return nil
		},
		OnStop: func(context.Context) error { cancel(); return nil },
	})
}

// Run starts the demo agent, waits for its answer and prints the transcript.
func Run(ctx context.Context, p Params, out io.Writer) error {
	id := fmt.Sprintf("demo-%s", time.Now().UTC().Format("20060102-150405"))
	opts := signals.AgentOptions{
		Provider: p.Providers.Default, Tools: p.Tools.Names(),
		SystemPrompt: "You are Tether's demo agent. Use tools to answer precisely.",
	}
	fmt.Fprintf(out, "Agent %s on provider %q", id, p.Providers.Default)
	if p.Providers.Default == "scripted" {
		fmt.Fprint(out, " (the scripted demo model: no API key configured)")
	}
	fmt.Fprintf(out, "\nTools: %v\n\n", opts.Tools)
	aopts := []agent.Option{agent.WithDataConverter(p.Converter)}
	if p.Queue.NoSearchAttributes {
		aopts = append(aopts, agent.WithoutSearchAttributes())
	}
	h, err := agent.New(p.Client, p.Queue.TaskQueue, aopts...).Create(ctx, agent.CreateOptions{ID: id, Options: opts, First: p.Config.Prompt})
	if err != nil {
		return err
	}
	st, err := h.WaitIdle(ctx)
	if err != nil {
		return err
	}
	log, err := h.Log(ctx)
	if err != nil {
		return err
	}
	if err := agent.WriteTranscript(out, id, log); err != nil {
		return err
	}
	dev := "go run ./cmd/worker --dev"
	if p.Config.DataDir != configfx.DefaultDataDir {
		dev += " --data-dir " + p.Config.DataDir
	}
	if ws := p.Config.Workspace; ws != "" {
		dev += " --workspace " + ws // the demo agent names the file tools
	}
	fmt.Fprintf(out, "\nAgent %s is %s after turn %d. Inspect it in the Web UI: %s\n", id, st.Status, st.Turn, dev)
	return settled(log)
}

// settled fails the demo unless its turn completed with an answer.
func settled(log []eventlog.Envelope) error {
	evs, err := eventlog.DecodeAll(log)
	if err != nil {
		return err
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if end, ok := evs[i].(eventlog.TurnEnd); ok {
			if end.Reason != eventlog.EndCompleted {
				return fmt.Errorf("demo turn ended %s: %s", end.Reason, end.Error)
			}
			return nil
		}
	}
	return fmt.Errorf("demo agent never finished a turn")
}
