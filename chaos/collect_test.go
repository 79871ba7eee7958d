package chaos

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
)

// run is one run of an agent's chain: its ID and its whole history.
type run struct {
	id     string
	events []*historypb.HistoryEvent
}

// record is everything the checks read of one agent.
type record struct {
	id     string
	runs   []run // oldest first
	log    []eventlog.Envelope
	events []eventlog.Event // decoded log; nil when it does not decode
	attack string           // the flood attack that started it, if any
	// cut is set for an agent the harness disposed mid-turn: that turn
	// ends canceled, and so does its running tool call.
	cut bool
	// lateCanceled counts its canceled calls' executions that started
	// after the cancel was recorded (see checkResult).
	lateCanceled int
}

// violations collects what the checks found. Safe for concurrent use.
type violations struct {
	mu   sync.Mutex
	list []string
}

func (v *violations) add(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.list = append(v.list, fmt.Sprintf(format, args...))
}

// collect reads every agent reachable from ids (children through their
// parents' logs): each run's history, and the log through the agent's own
// query, which spans the chain.
func collect(ctx context.Context, c client.Client, ids []string, attacks map[string]string, v *violations) []*record {
	agents := agent.New(c, "")
	seen := map[string]bool{}
	queue := slices.Clone(ids)
	var out []*record
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		r, err := read(ctx, c, agents, id)
		if err != nil {
			v.add("%s: cannot be read: %v", id, err)
			continue
		}
		r.attack = attacks[id]
		out = append(out, r)
		for _, e := range r.events {
			if s, ok := e.(eventlog.ChildStarted); ok {
				queue = append(queue, s.ChildID)
			}
		}
	}
	return out
}

func read(ctx context.Context, c client.Client, agents *agent.Client, id string) (*record, error) {
	r := &record{id: id}
	if _, err := persist(ctx, func(ctx context.Context) (err error) {
		r.runs, err = fetchChain(ctx, c, id)
		return err
	}); err != nil {
		return nil, err
	}
	_, err := persist(ctx, func(ctx context.Context) error {
		h, err := agents.Attach(ctx, id)
		if h == nil {
			return err
		}
		r.log, err = h.Log(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	r.events, _ = eventlog.DecodeAll(r.log) // checkLog reports a failure
	return r, nil
}

// fetchChain reads every run of the workflow's chain, oldest first, with
// its run ID (which the replayer needs).
func fetchChain(ctx context.Context, c client.Client, id string) ([]run, error) {
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return nil, err
	}
	runID := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	var runs []run
	for runID != "" {
		events, err := projection.Fetch(ctx, c, id, runID)
		if err != nil {
			return nil, err
		}
		if len(events) == 0 {
			return nil, fmt.Errorf("run %s has no history", runID)
		}
		runs = append([]run{{id: runID, events: events}}, runs...)
		runID = events[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
	}
	return runs, nil
}

// histories are the runs' histories alone, for projection.
func (r *record) histories() [][]*historypb.HistoryEvent {
	out := make([][]*historypb.HistoryEvent, len(r.runs))
	for i, run := range r.runs {
		out[i] = run.events
	}
	return out
}

// fleet reports whether the agent belongs to the fleet (a root or one of
// its children), not to the flood.
func (r *record) fleet() bool { return r.attack == "" && !strings.HasPrefix(r.id, "flood-") }
