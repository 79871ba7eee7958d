package bench

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/devserver"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// env is the embedded server of `cmd/worker --dev` (internal/devserver,
// SQLite in memory, tuned as it ships) with one worker running the
// workload as cmd/worker runs it, all in the benchmark's process.
type env struct {
	srv    *devserver.Server
	c      client.Client
	agents *agent.Client
	w      worker.Worker
}

// server starts the embedded server and a worker with the workload's
// model and tools; more registers further workflows or activities (the
// floor) on the same worker before it starts.
func server(b testing.TB, more ...func(worker.Registry)) *env {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := devserver.Start(ctx, devserver.Options{SearchAttributes: devserver.DefaultSearchAttributes()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Stop() })
	c := dial(b, srv)
	reg, _ := tools.NewRegistry(fetchTool("fetch", false), fetchTool("read", true))
	w := startWorker(b, c, signals.TaskQueue, workloadModel{}, reg, more...)
	return &env{srv: srv, c: c, agents: agent.New(c, signals.TaskQueue), w: w}
}

func dial(b testing.TB, srv *devserver.Server) client.Client {
	b.Helper()
	c, err := client.Dial(client.Options{HostPort: srv.HostPort(), Namespace: srv.Namespace(),
		Logger: tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

// startWorker runs a worker on queue whose default provider is model, as
// workerfx builds it: one log reader shared by the activities.
func startWorker(b testing.TB, c client.Client, queue string, model activities.Provider, reg *tools.Registry,
	more ...func(worker.Registry)) worker.Worker {
	b.Helper()
	reader := activities.NewLogReader(activities.WorkflowLog{Client: c}, 0)
	w := worker.New(c, queue, worker.Options{BuildID: workerfx.BuildID()})
	cfg := workerfx.WorkflowConfig(workflows.Config{}, nil, reg)
	cfg.Snapshots = reader
	workflows.Register(w, cfg)
	activities.Register(w,
		&activities.Model{Providers: map[string]activities.Provider{"bench": model, scripted.Name: scripted.Provider{}},
			DefaultProvider: "bench", Tools: reg, Log: reader},
		&activities.Tool{Runner: reg, Log: reader})
	for _, m := range more {
		m(w)
	}
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Stop)
	return w
}
