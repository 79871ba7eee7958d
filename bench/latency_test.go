package bench

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// BenchmarkTurnLatency measures a turn of the workload (a message in, model
// → tool → model, idle) side by side, turn after turn in one run, for three
// subjects on one worker: Tether with the tool as an activity, Tether with
// it as a fast local tool, and the floor, a bare hand-written workflow
// running the same activities (floor_test.go). For each it reports the
// client-observed turn (message sent → the client sees the turn done:
// Handle.WaitIdle for Tether, a history long-poll for the floor) and the
// workflow's own turn (signal event → the workflow task that ends the turn,
// from the history's timestamps), p50 and p99, and the ratio of Tether's
// workflow turn over the floor's.
func BenchmarkTurnLatency(b *testing.B) {
	e := server(b, registerFloor)
	ctx := context.Background()
	subjects := []*subject{
		e.tetherSubject(b, "activity-tool", "fetch", 3),
		e.tetherSubject(b, "local-tool", "read", 2),
		e.floorSubject(b),
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range subjects {
			if err := s.turn(ctx, fmt.Sprintf("turn %d", i)); err != nil {
				b.Fatalf("%s turn %d: %v", s.name, i, err)
			}
		}
	}
	b.StopTimer()
	for _, s := range subjects {
		b.ReportMetric(pct(s.client, 50), s.name+"-p50-ms")
		b.ReportMetric(pct(s.client, 99), s.name+"-p99-ms")
		b.ReportMetric(pct(s.workflow, 50), s.name+"-wf-p50-ms")
		b.ReportMetric(pct(s.workflow, 99), s.name+"-wf-p99-ms")
	}
	b.ReportMetric(pct(subjects[0].workflow, 50)/pct(subjects[2].workflow, 50), "tether/floor-wf-p50")
}

// subject is one workflow taking turns: send starts a turn, wait returns
// when the client sees it done, and its history tells the workflow's own
// turn time.
type subject struct {
	name     string
	send     func(ctx context.Context, prompt string) error
	wait     func(ctx context.Context) error
	hist     *historyWatch
	acts     int // activity completions in a turn
	client   []time.Duration
	workflow []time.Duration
}

func (s *subject) turn(ctx context.Context, prompt string) error {
	start := time.Now()
	if err := s.send(ctx, prompt); err != nil {
		return err
	}
	if err := s.wait(ctx); err != nil {
		return err
	}
	s.client = append(s.client, time.Since(start))
	d, err := s.hist.turn(ctx, s.acts)
	if err != nil {
		return err
	}
	s.workflow = append(s.workflow, d)
	return nil
}

func (e *env) tetherSubject(b *testing.B, name, tool string, acts int) *subject {
	ctx := context.Background()
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "latency-" + name, Options: signals.AgentOptions{Tools: []string{tool}}})
	if err != nil {
		b.Fatal(err)
	}
	return &subject{
		name: name, acts: acts, hist: &historyWatch{c: e.c, id: h.ID},
		send: func(ctx context.Context, p string) error { _, err := h.Followup(ctx, p); return err },
		wait: func(ctx context.Context) error { _, err := h.WaitIdle(ctx); return err },
	}
}

func (e *env) floorSubject(b *testing.B) *subject {
	ctx := context.Background()
	run, err := e.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "latency-floor", TaskQueue: signals.TaskQueue}, floorWorkflow)
	if err != nil {
		b.Fatal(err)
	}
	s := &subject{name: "floor", acts: 3, hist: &historyWatch{c: e.c, id: run.GetID()}}
	done := &historyWatch{c: e.c, id: run.GetID()}
	s.send = func(ctx context.Context, p string) error {
		return e.c.SignalWorkflow(ctx, run.GetID(), "", floorSignal, p)
	}
	s.wait = func(ctx context.Context) error { _, err := done.turn(ctx, 3); return err }
	return s
}

// historyWatch long-polls one workflow's history (following its runs) and
// cuts it into turns.
type historyWatch struct {
	c  client.Client
	id string
	it client.HistoryEventIterator
}

// turn reads the next turn: from a signal to the workflow task completed
// after acts activities completed. It returns the time between them.
func (w *historyWatch) turn(ctx context.Context, acts int) (time.Duration, error) {
	var signaled time.Time
	for {
		ev, err := w.next(ctx)
		if err != nil {
			return 0, err
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			if signaled.IsZero() {
				signaled = ev.GetEventTime().AsTime()
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			acts--
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			if acts <= 0 && !signaled.IsZero() {
				return ev.GetEventTime().AsTime().Sub(signaled), nil
			}
		}
	}
}

func (w *historyWatch) next(ctx context.Context) (*historypb.HistoryEvent, error) {
	for {
		if w.it == nil {
			w.it = w.c.GetWorkflowHistory(ctx, w.id, "", true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		}
		if !w.it.HasNext() {
			w.it = nil // the run ended (continued as new): follow the next one
			continue
		}
		return w.it.Next()
	}
}

// pct is the p-th percentile of d in milliseconds.
func pct(d []time.Duration, p int) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[min(len(s)-1, len(s)*p/100)].Microseconds()) / 1000
}
