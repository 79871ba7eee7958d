package bench

import (
	"context"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// stampModel streams chunks whose text is the time they were emitted.
type stampModel struct {
	chunks int
	every  time.Duration
}

func (m stampModel) Complete(ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	return m.Stream(ctx, req, func(llm.Chunk) {})
}

func (m stampModel) Stream(ctx context.Context, _ llm.Request, emit func(llm.Chunk)) (eventlog.AssistantMessage, error) {
	t := time.NewTicker(m.every)
	defer t.Stop()
	for range m.chunks {
		select {
		case <-ctx.Done():
			return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureCanceled, 0, 0, "canceled", ctx.Err())
		case <-t.C:
		}
		emit(llm.Chunk{Text: strconv.FormatInt(time.Now().UnixNano(), 10)})
	}
	return eventlog.AssistantMessage{Text: "streamed", FinishReason: eventlog.FinishStop}, nil
}

// BenchmarkTokenLatency measures the time from the provider emitting a
// chunk on the worker to a subscribed client (Handle.Tokens, over the
// worker's SSE endpoint) receiving it: 400 chunks, one every 5 ms, of one
// model call, against the embedded server.
func BenchmarkTokenLatency(b *testing.B) {
	e := serverOnly(b)
	c := e.c
	hub := stream.NewHub(stream.HubOptions{})
	srv := httptest.NewServer(hub.Handler())
	b.Cleanup(func() { hub.Close(); srv.Close() })
	reg, _ := tools.NewRegistry()
	reader := activities.NewLogReader(activities.WorkflowLog{Client: c}, 0)
	w := worker.New(c, "stream-bench", worker.Options{})
	streams := activities.HubStreams{Hub: hub, BaseURL: srv.URL}
	cfg := workerfx.WorkflowConfig(workflows.Config{}, nil, reg)
	cfg.Snapshots, cfg.Feeds = reader, streams
	workflows.Register(w, cfg)
	activities.Register(w,
		&activities.Model{Providers: map[string]activities.Provider{"stamp": stampModel{chunks: 400, every: 5 * time.Millisecond}},
			DefaultProvider: "stamp", Tools: reg, Log: reader, Streams: streams},
		&activities.Tool{Runner: reg, Log: reader})
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Stop)
	streaming := agent.New(c, "stream-bench")
	ctx := context.Background()
	var lat []time.Duration
	for i := 0; i < b.N; i++ {
		h, err := streaming.Create(ctx, agent.CreateOptions{ID: "tokens-" + strconv.Itoa(i), Options: signals.AgentOptions{Provider: "stamp"}, First: "go"})
		if err != nil {
			b.Fatal(err)
		}
		tctx, stop := context.WithTimeout(ctx, time.Minute)
		for ev, err := range h.Tokens(tctx) {
			if err != nil {
				b.Fatal(err)
			}
			if ev.Kind == agent.TokenDone {
				break
			}
			if ns, err := strconv.ParseInt(ev.Chunk.Text, 10, 64); err == nil {
				lat = append(lat, time.Since(time.Unix(0, ns)))
			}
		}
		stop()
	}
	slices.Sort(lat)
	if len(lat) == 0 {
		b.Fatal("no chunk received")
	}
	b.ReportMetric(float64(len(lat))/float64(b.N), "chunks/call")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
