package stream

import (
	"sync"

	"github.com/tetherdev/tether/activities/llm"
)

// Writer feeds one stream. Emit and Close are safe for concurrent use; the
// order of concurrent Emits is the order they take the stream's lock. It
// satisfies activities.ChunkWriter.
type Writer struct {
	hub *Hub
	s   *stream
}

// Emit appends c to the stream. It never waits for a subscriber and does
// nothing once the stream is closed, replaced or its hub is closed.
func (w *Writer) Emit(c llm.Chunk) {
	w.s.emit(c)
}

// Token is the capability that reads this stream. Publish it only where
// those who may read the model call see it (the activity's heartbeat
// details, readable by whoever can read the workflow), and never log it.
func (w *Writer) Token() string { return w.s.token }

// Close ends the stream: a "done" event for nil, an "error" event with
// err.Error() otherwise, telling subscribers to discard the partial output.
// Only the first Close counts. The stream stays readable for Linger.
func (w *Writer) Close(err error) {
	if w.s.finish(err) {
		w.hub.retire(w.s)
		w.hub.callClosed(w.s.feed)
	}
}

// stream is one stream's event window. Readers find events by Seq, so
// a slow reader costs nothing but its position until the window moves past
// it.
type stream struct {
	key    Key
	token  string
	window int // events held at most

	subscribers int // guarded by the hub's mu, not the stream's

	// A call's stream forwards every event to its agent's feed, naming the
	// call; both are set when it opens and never change. A feed's own
	// stream has neither.
	feed *agentFeed
	call *CallRef
	// self is the feed whose stream this is; nil for a call's stream.
	self *agentFeed

	mu       sync.Mutex
	events   []Event // the window: events[i].Seq == first+i
	first    int64
	next     int64         // Seq of the next event
	finished bool          // the last event is terminal
	aborted  string        // ErrorReplaced or ErrorHubClosed once the stream is cut
	wake     chan struct{} // closed by the next change; nil until a reader waits
}

func newStream(k Key, token string, window int) *stream {
	return &stream{key: k, token: token, window: window}
}

func (s *stream) emit(c llm.Chunk) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished || s.aborted != "" {
		return
	}
	s.appendLocked(Event{Kind: KindChunk, Chunk: &c})
	s.forwardLocked(Event{Kind: KindChunk, Chunk: &c})
}

// forwardLocked copies a call's event to its agent's feed while the call's
// lock is held, so the feed has the call's events in the call's order.
func (s *stream) forwardLocked(ev Event) {
	if s.feed != nil {
		ev.Call = s.call
		s.feed.s.push(ev)
	}
}

// push appends ev to a feed, which never finishes.
func (s *stream) push(ev Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.aborted != "" {
		return
	}
	s.appendLocked(ev)
}

// finish appends the terminal event and reports whether this call did.
func (s *stream) finish(err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished || s.aborted != "" {
		return false
	}
	ev := Event{Kind: KindDone}
	if err != nil {
		ev = Event{Kind: KindError, Error: err.Error()}
	}
	s.appendLocked(ev)
	s.forwardLocked(ev)
	s.finished = true
	return true
}

// abort cuts every reader off with an error event and drops the window. It
// reports whether the stream was still open: a call's feed then gets the
// error event too.
func (s *stream) abort(reason string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.aborted != "" {
		return false
	}
	open := !s.finished
	if open {
		s.forwardLocked(Event{Kind: KindError, Error: reason})
	}
	s.aborted = reason
	s.events = nil
	s.wakeLocked()
	return open
}

func (s *stream) appendLocked(ev Event) {
	ev.Seq = s.next
	s.next++
	s.events = append(s.events, ev)
	if len(s.events) > s.window {
		s.events[0] = Event{} // let the chunk go
		s.events = s.events[1:]
		s.first++
	}
	s.wakeLocked()
}

func (s *stream) wakeLocked() {
	if s.wake != nil {
		close(s.wake)
		s.wake = nil
	}
}

// at returns the event a reader at cursor gets next, or, when there is none
// yet, a channel closed by the next change. A cursor past the end of a
// finished stream gets the terminal event, so every reader ends.
func (s *stream) at(cursor int64) (Event, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.aborted == ErrorReplaced:
		return Event{Seq: 0, Kind: KindError, Error: ErrorReplaced}, nil
	case s.aborted != "":
		return Event{Seq: cursor, Kind: KindError, Error: s.aborted}, nil
	case cursor < s.first:
		return Event{Seq: s.first, Kind: KindError, Error: ErrorLagged}, nil
	case cursor < s.next:
		return s.events[cursor-s.first], nil
	case s.finished:
		return s.events[len(s.events)-1], nil
	}
	if s.wake == nil {
		s.wake = make(chan struct{})
	}
	return Event{}, s.wake
}
