package console

import (
	"context"
	"errors"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/console/transcript"
	"github.com/tetherdev/tether/signals"
)

// Polling bounds of a feed's log reader, and how often an idle feed checks
// whether its agent closed.
const (
	minPoll         = 25 * time.Millisecond
	maxPoll         = 250 * time.Millisecond
	closedCheck     = 4 * time.Second
	subscriberQueue = 256
	retryTokens     = time.Second
	// treeEvery is how often a feed reads its agent's tree again while
	// agents in it may change.
	treeEvery = 2 * time.Second
)

// frame is one Server-Sent Event. ID is the log position it brings a page
// to, or -1 for events that move no position (tokens, notices).
type frame struct {
	Event string
	ID    int64
	Data  []byte
}

// feed follows one agent: its log, folded into a transcript whose changed
// blocks it renders once for every viewer, its status, and the tokens of
// its model call in flight.
type feed struct {
	s      *Server
	h      *agent.Handle
	ctx    context.Context
	cancel context.CancelFunc
	ready  chan struct{} // closed once the first read is done
	refs   int           // guarded by feeds.mu

	mu     sync.Mutex
	err    error // the first read's failure
	done   bool
	closed bool // the agent's workflow has ended
	tr     *transcript.Transcript
	status []byte
	parent string // the agent's parent, from its options
	live   liveCalls
	subs   map[chan frame]struct{}

	// tree is the agent's tree as last read, with the log's children it
	// was read for; owned by run's goroutine.
	tree struct {
		root *treeNode
		key  string
		at   time.Time
	}
	// turn says whether the status last read (at) had a turn running;
	// owned by run's goroutine.
	turn struct {
		running bool
		at      time.Time
	}
}

// subscribe returns the frames that bring a page at log position from up
// to date, and a channel of the frames after them; the channel is nil when
// the feed has ended, and closed when the subscriber falls too far behind
// (it reconnects) or the feed ends.
func (f *feed) subscribe(ctx context.Context, from int64) ([]frame, chan frame, error) {
	select {
	case <-f.ready:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, nil, f.err
	}
	var out []frame
	for _, b := range f.tr.Since(from) {
		out = append(out, f.blockFrame(b))
	}
	out = append(out, frame{Event: "status", ID: f.tr.Next - 1, Data: f.status})
	out = append(out, f.live.frames()...)
	switch {
	case f.closed:
		return append(out, closedFrame), nil, nil
	case f.done:
		return out, nil, nil
	}
	ch := make(chan frame, subscriberQueue)
	f.subs[ch] = struct{}{}
	return out, ch, nil
}

// unsubscribe drops ch, if it is still subscribed.
func (f *feed) unsubscribe(ch chan frame) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.subs[ch]; ok {
		delete(f.subs, ch)
		close(ch)
	}
}

var closedFrame = frame{Event: "closed", ID: -1, Data: []byte(`{}`)}

// broadcast sends fr to every subscriber; one whose queue is full is
// dropped and reconnects from its last position. Call with f.mu held.
func (f *feed) broadcast(fr frame) {
	for ch := range f.subs {
		select {
		case ch <- fr:
		default:
			delete(f.subs, ch)
			close(ch)
		}
	}
}

// run reads the log until the agent closes or the last viewer leaves.
func (f *feed) run() {
	defer f.end()
	if !f.start() {
		return
	}
	go f.followTokens()
	delay, idle := minPoll, time.Duration(0)
	for {
		select {
		case <-f.ctx.Done():
			return
		case <-time.After(delay):
		}
		n, closed := f.poll()
		switch {
		case closed:
			f.markClosed()
			return
		case n > 0:
			delay, idle = minPoll, 0
			continue
		}
		if f.treeDue() || f.progressDue() {
			f.refreshStatus()
		}
		if idle += delay; idle >= closedCheck {
			if f.ended() {
				f.markClosed()
				return
			}
			idle = 0
		}
		delay = min(2*delay, maxPoll)
	}
}

// start reads the whole log and the status, then opens the feed.
func (f *feed) start() bool {
	defer close(f.ready)
	ctx, cancel := context.WithTimeout(f.ctx, f.s.o.QueryTimeout)
	defer cancel()
	log, err := f.h.LogFrom(ctx, 0)
	var tr *transcript.Transcript
	if err == nil {
		prices := signals.Prices{}
		if o := f.s.options(f.ctx, f.h.ID); o != nil {
			f.parent = o.Parent // before any status renders; read under f.mu after
			if o.Budget != nil {
				prices = o.Budget.Prices
			}
		}
		tr, err = transcript.Build(log, prices)
	}
	status := f.statusJSON(tr)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tr, f.err, f.status = tr, err, status
	return err == nil
}

// poll reads the events after the feed's position and sends what they
// changed; it reports how many arrived and whether the agent has closed.
func (f *feed) poll() (int, bool) {
	f.mu.Lock()
	next := f.tr.Next
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(f.ctx, f.s.o.QueryTimeout)
	envs, err := f.h.LogFrom(ctx, next)
	cancel()
	if err != nil {
		return 0, errors.Is(err, agent.ErrNotFound) || f.ended()
	}
	if len(envs) == 0 {
		return 0, false
	}
	f.mu.Lock()
	for _, env := range envs {
		if _, err := f.tr.Apply(env); err != nil {
			f.mu.Unlock()
			f.s.o.Logger.Warn("Console feed cannot fold the log", "agent_id", f.h.ID, "error", err)
			return 0, true
		}
	}
	// Every block an event changed, not only the one it went to: a
	// rewind also sets apart the turns it went back past.
	changed := f.tr.Since(next)
	tr := f.tr
	f.mu.Unlock()
	status := f.statusJSON(tr)

	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range changed {
		f.broadcast(f.blockFrame(b))
	}
	f.status = status
	f.broadcast(frame{Event: "status", ID: f.tr.Next - 1, Data: status})
	f.live.settle(f.tr)
	return len(envs), false
}

// ended asks Temporal whether the agent's workflow has ended (or is gone);
// an unanswered question is not an end.
func (f *feed) ended() bool {
	desc, err := f.s.o.Client.DescribeWorkflowExecution(f.ctx, f.h.ID, "")
	var nf *serviceerror.NotFound
	if err != nil {
		return errors.As(err, &nf)
	}
	return desc.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
}

func (f *feed) markClosed() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
}

// end tells the subscribers the feed is over and lets them go.
func (f *feed) end() {
	f.cancel()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.done = true
	if f.closed {
		f.broadcast(closedFrame)
	}
	for ch := range f.subs {
		delete(f.subs, ch)
		close(ch)
	}
}
