package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// BenchmarkTurnLatency measures a turn of the workload (a message in, model
// → tool → model, idle) side by side, turn after turn in one run, for three
// subjects on one worker: Tether with the tool as an activity, Tether with
// it as a fast local tool, and the floor, a bare hand-written workflow
// running the same activities (floor_test.go). For each it reports the
// client-observed turn (message sent → the client sees the turn done:
// Handle.WaitIdle for Tether, a history long poll for the floor) and the
// workflow's own turn (signal event → the workflow task that ends the turn,
// from the histories' timestamps, read after the run so that measuring
// adds no load), p50 and p99, and the ratio of Tether's workflow turn over
// the floor's.
//
// With TETHER_BENCH_ADDRESS set it runs against that server instead
// (address_test.go), and for each subject it also reports where a turn's
// time went, at p50 over every task of the timed turns: a workflow task's
// dispatch (scheduled → started) and run (started → completed), and an
// activity's dispatch and run.
func BenchmarkTurnLatency(b *testing.B) {
	e := latencyTarget(b)
	b.Logf("server %s, task queue %s", e.name, e.queue)
	ctx := context.Background()
	subjects := []*subject{
		e.tetherSubject(b, "activity-tool", "fetch", 3),
		e.tetherSubject(b, "local-tool", "read", 2),
		e.floorSubject(b),
	}
	const warmup = 5
	for i := 0; i < warmup+b.N; i++ {
		if i == warmup {
			b.ResetTimer()
		}
		for _, s := range subjects {
			if err := s.turn(ctx, fmt.Sprintf("turn %d", i), i >= warmup); err != nil {
				b.Fatalf("%s turn %d: %v", s.name, i, err)
			}
		}
	}
	b.StopTimer()
	for _, s := range subjects {
		wf, ph, err := s.workflowTurns(ctx, e.c, warmup)
		if err != nil {
			b.Fatal(err)
		}
		s.workflow = wf[warmup:]
		ph.report(b, s.name)
		b.ReportMetric(pctMs(s.client, 50), s.name+"-p50-ms")
		b.ReportMetric(pctMs(s.client, 99), s.name+"-p99-ms")
		b.ReportMetric(pctMs(s.workflow, 50), s.name+"-wf-p50-ms")
		b.ReportMetric(pctMs(s.workflow, 99), s.name+"-wf-p99-ms")
	}
	b.ReportMetric(pctMs(subjects[0].workflow, 50)/pctMs(subjects[2].workflow, 50), "tether/floor-wf-p50")
	b.ReportMetric(pctMs(subjects[0].client, 50)/pctMs(subjects[2].client, 50), "tether/floor-client-p50")
}

// subject is one workflow taking turns: send starts a turn, wait returns
// when the client sees it done; its history tells the workflow's own turn
// times afterwards.
type subject struct {
	name     string
	id       string
	send     func(ctx context.Context, prompt string) error
	wait     func(ctx context.Context) error
	acts     int // activity completions in a turn
	client   []time.Duration
	workflow []time.Duration
}

func (s *subject) turn(ctx context.Context, prompt string, timed bool) error {
	start := time.Now()
	if err := s.send(ctx, prompt); err != nil {
		return err
	}
	if err := s.wait(ctx); err != nil {
		return err
	}
	if timed {
		s.client = append(s.client, time.Since(start))
	}
	return nil
}

// workflowTurns cuts the subject's history (every run) into turns: from a
// signal to the workflow task completed after the turn's activities; and
// times the tasks of every turn after the first skip.
func (s *subject) workflowTurns(ctx context.Context, c client.Client, skip int) ([]time.Duration, *phases, error) {
	runs, err := projection.FetchChain(ctx, c, s.id)
	if err != nil {
		return nil, nil, err
	}
	var out []time.Duration
	ph := newPhases()
	var signaled time.Time
	acts := s.acts
	for _, run := range runs {
		for _, ev := range run {
			if len(out) >= skip {
				ph.add(ev)
			}
			switch ev.GetEventType() {
			case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
				if signaled.IsZero() {
					signaled, acts = ev.GetEventTime().AsTime(), s.acts
				}
			case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
				acts--
			case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
				if acts <= 0 && !signaled.IsZero() {
					out = append(out, ev.GetEventTime().AsTime().Sub(signaled))
					signaled = time.Time{}
				}
			}
		}
		ph.endRun()
	}
	return out, ph, nil
}

func (e latencyServer) tetherSubject(b testing.TB, name, tool string, acts int) *subject {
	ctx := context.Background()
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: e.prefix + name, Options: signals.AgentOptions{Tools: []string{tool}}})
	if err != nil {
		b.Fatal(err)
	}
	return &subject{
		name: name, id: h.ID, acts: acts,
		send: func(ctx context.Context, p string) error {
			_, err := h.Followup(ctx, p, agent.Unacknowledged())
			return err
		},
		wait: func(ctx context.Context) error { _, err := h.WaitIdle(ctx); return err },
	}
}

func (e latencyServer) floorSubject(b testing.TB) *subject {
	ctx := context.Background()
	id := e.prefix + "floor"
	if _, err := e.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: e.queue}, floorWorkflow); err != nil {
		b.Fatal(err)
	}
	done := &historyWatch{c: e.c, id: id}
	return &subject{
		name: "floor", id: id, acts: 3,
		send: func(ctx context.Context, p string) error { return e.c.SignalWorkflow(ctx, id, "", floorSignal, p) },
		wait: func(ctx context.Context) error { return done.turn(ctx, 3) },
	}
}

// historyWatch long-polls one workflow's history: how a client of a bare
// workflow waits for a turn without writing to it.
type historyWatch struct {
	c  client.Client
	id string
	it client.HistoryEventIterator
}

// turn returns once the workflow task after acts activity completions that
// follow a signal has completed.
func (w *historyWatch) turn(ctx context.Context, acts int) error {
	signaled := false
	for {
		if w.it == nil {
			w.it = w.c.GetWorkflowHistory(ctx, w.id, "", true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		}
		if !w.it.HasNext() {
			w.it = nil // the run ended (continued as new): follow the next one
			continue
		}
		ev, err := w.it.Next()
		if err != nil {
			return err
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			signaled = true
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			acts--
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			if acts <= 0 && signaled {
				return nil
			}
		}
	}
}

// pctMs is the p-th percentile of d in milliseconds.
func pctMs(d []time.Duration, p int) float64 { return float64(pct(d, p).Microseconds()) / 1000 }
