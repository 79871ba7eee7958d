package agent

import (
	"context"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// watches follows agents' histories for the handles of one Client: one
// long poll (GetWorkflowExecutionHistory with WaitNewEvent) per agent,
// however many callers wait on it, started by the first and stopped
// watchLinger after the last one left. Waiting this way reads history and
// writes nothing to it; the server answers a long poll as soon as a
// workflow task commits, so a waiter wakes within milliseconds.
type watches struct {
	c    client.Client
	mu   sync.Mutex
	byID map[string]*watch
}

// watchLinger keeps an unused watch polling for a while: a client waiting
// turn after turn on one agent reads its history once, not once a turn.
const watchLinger = time.Minute

func newWatches(c client.Client) *watches {
	return &watches{c: c, byID: map[string]*watch{}}
}

// watch is one agent's long poll. Its pulses tell waiters that something
// they care about may have happened; they confirm with the agent itself.
type watch struct {
	ws *watches
	id string

	mu     sync.Mutex
	users  int
	linger *time.Timer
	cancel context.CancelFunc
	// grew pulses on every workflow task completed (the log may have grown)
	// and on the run's end; settled when the agent may have become idle:
	// a status search attribute set to idle, a marker (the journal written
	// when an agent goes idle), the run's end, or, in a run that writes no
	// status, a workflow task that took a model call's answer (see runEvents).
	grew, settled pulse
}

// pulse is a broadcast: wait returns a channel closed by the next fire.
type pulse struct{ ch chan struct{} }

func (p *pulse) wait() <-chan struct{} {
	if p.ch == nil {
		p.ch = make(chan struct{})
	}
	return p.ch
}

func (p *pulse) fire() {
	if p.ch != nil {
		close(p.ch)
		p.ch = nil
	}
}

// acquire returns the agent's watch, starting it if needed; call release
// when done waiting.
func (ws *watches) acquire(id string) *watch {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w := ws.byID[id]
	if w == nil {
		ctx, cancel := context.WithCancel(context.Background())
		w = &watch{ws: ws, id: id, cancel: cancel}
		ws.byID[id] = w
		go w.follow(ctx)
	}
	w.mu.Lock()
	w.users++
	if w.linger != nil {
		w.linger.Stop()
		w.linger = nil
	}
	w.mu.Unlock()
	return w
}

func (w *watch) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.users--; w.users == 0 {
		w.linger = time.AfterFunc(watchLinger, w.stopIfUnused)
	}
}

func (w *watch) stopIfUnused() {
	w.ws.mu.Lock()
	defer w.ws.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.users == 0 && w.ws.byID[w.id] == w {
		delete(w.ws.byID, w.id)
		w.cancel()
	}
}

// wait returns the channels a waiter selects on: grown and settled.
func (w *watch) wait() (grew, settled <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.grew.wait(), w.settled.wait()
}

func (w *watch) fire(settled bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.grew.fire()
	if settled {
		w.settled.fire()
	}
}

// follow long-polls the agent's current run from its present end, then
// each run it continues as. Events before the watch started are read (the
// API has no other way to reach the end) but fire nothing.
func (w *watch) follow(ctx context.Context) {
	defer w.fire(true)
	for backoff := minPoll; ctx.Err() == nil; {
		desc, err := w.ws.c.DescribeWorkflowExecution(ctx, w.id, "")
		if err != nil {
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, maxPoll)
			continue
		}
		info := desc.GetWorkflowExecutionInfo()
		if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return // closed for good: waiters find out from the agent
		}
		closed := w.read(ctx, info.GetExecution().GetRunId(), info.GetHistoryLength())
		w.fire(true) // the run ended (or the poll failed): ask the agent
		if closed {
			backoff = minPoll
		} else if !sleep(ctx, backoff) {
			return
		} else {
			backoff = min(2*backoff, maxPoll)
		}
	}
}

// read follows one run until it closes (true) or the poll fails (false),
// firing for events after floor.
func (w *watch) read(ctx context.Context, runID string, floor int64) bool {
	it := w.ws.c.GetWorkflowHistory(ctx, w.id, runID, true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var run runEvents
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return false
		}
		if grew, settled := run.classify(ev); grew && ev.GetEventId() > floor {
			w.fire(settled)
		}
	}
	return true
}

// runEvents classifies one run's events, read in order from its first.
type runEvents struct {
	models   map[int64]bool // the scheduled event IDs of model activities
	answered bool           // a model activity completed since the last workflow task
	statuses bool           // the run wrote its status search attribute
}

// classify says whether ev may have grown the log and whether it may mean
// the agent settled idle. A run that writes no status search attribute
// (a worker run with --no-search-attributes) writes nothing at all when a
// turn ends on a model's answer: there the workflow task that took an
// answer may have settled it.
func (r *runEvents) classify(ev *historypb.HistoryEvent) (grew, settled bool) {
	switch ev.GetEventType() {
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
		if ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == signals.ModelActivity {
			if r.models == nil {
				r.models = map[int64]bool{}
			}
			r.models[ev.GetEventId()] = true
		}
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
		r.answered = r.answered || r.models[ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()]
	case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
		settled, r.answered = r.answered && !r.statuses, false
		return true, settled
	case enumspb.EVENT_TYPE_MARKER_RECORDED:
		return true, true
	case enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
		p := ev.GetUpsertWorkflowSearchAttributesEventAttributes().GetSearchAttributes().GetIndexedFields()[signals.AttrStatus]
		var status string
		if p == nil || converter.GetDefaultDataConverter().FromPayload(p, &status) != nil {
			return false, false
		}
		r.statuses = true
		return true, status == string(eventlog.StatusIdle)
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
		return true, true
	}
	return false, false
}

// sleep waits d or until ctx ends, reporting whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
