package stream

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Defaults of HubOptions.
const (
	DefaultMaxEventsPerStream = 100_000
	DefaultLinger             = time.Minute
	DefaultOpenWait           = 5 * time.Second
	DefaultPingEvery          = 15 * time.Second
)

// subscriberBuffer is the capacity of a subscription's channel. It only
// smooths delivery: a subscriber's real slack is the stream's window.
const subscriberBuffer = 64

var (
	// ErrNoStream: no stream with that key opened within OpenWait, or it
	// finished longer than Linger ago.
	ErrNoStream = errors.New("no such stream")
	// ErrHubClosed: the hub is closed.
	ErrHubClosed = errors.New("stream hub closed")
)

// HubOptions configures a Hub. Zero values take the defaults.
type HubOptions struct {
	// MaxEventsPerStream is the window each stream keeps; older events are
	// dropped and a subscriber that still needs them gets ErrorLagged.
	MaxEventsPerStream int
	// Linger is how long a finished stream stays readable. Negative means
	// it goes at once.
	Linger time.Duration
	// OpenWait is how long Subscribe waits for a key that is not open yet,
	// as a client may see the locator before the worker opens the stream.
	// Negative means not at all.
	OpenWait time.Duration
	// PingEvery is how often Handler sends a comment on an idle response,
	// keeping proxies from closing it.
	PingEvery time.Duration
	// Now is the clock Linger is measured with.
	Now func() time.Time
}

func (o HubOptions) withDefaults() HubOptions {
	if o.MaxEventsPerStream <= 0 {
		o.MaxEventsPerStream = DefaultMaxEventsPerStream
	}
	if o.Linger == 0 {
		o.Linger = DefaultLinger
	}
	if o.OpenWait == 0 {
		o.OpenWait = DefaultOpenWait
	}
	if o.PingEvery <= 0 {
		o.PingEvery = DefaultPingEvery
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Linger = max(o.Linger, 0)
	o.OpenWait = max(o.OpenWait, 0)
	return o
}

// Hub holds the live streams of one worker in memory. It is safe for
// concurrent use. Each subscription runs one goroutine that copies events
// from the stream's window to the subscriber's channel; Close stops them all.
type Hub struct {
	opts HubOptions
	done chan struct{} // closed by Close
	subs sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	streams  map[Key]*stream
	opened   chan struct{} // closed by the next Open; nil until a Subscribe waits
	expiries []expiry      // finished streams, oldest first
	sweeper  *time.Timer   // armed while expiries is not empty
}

type expiry struct {
	s  *stream
	at time.Time
}

// NewHub returns an empty hub. Close it when the worker stops.
func NewHub(opts HubOptions) *Hub {
	return &Hub{
		opts:    opts.withDefaults(),
		done:    make(chan struct{}),
		streams: make(map[Key]*stream),
	}
}

// Open starts the stream of k. Opening a key that is already open replaces
// the old stream: its subscribers get ErrorReplaced and its Writer goes
// quiet. After Close it returns a Writer that discards everything.
func (h *Hub) Open(k Key) *Writer {
	s := newStream(k, h.opts.MaxEventsPerStream)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		s.abort(ErrorHubClosed)
		return &Writer{hub: h, s: s}
	}
	h.sweepLocked(h.opts.Now())
	if old := h.streams[k]; old != nil {
		old.abort(ErrorReplaced)
	}
	h.streams[k] = s
	if h.opened != nil {
		close(h.opened)
		h.opened = nil
	}
	return &Writer{hub: h, s: s}
}

// Subscribe returns k's events from Seq from on: the buffered ones, then live
// ones. The channel closes after a terminal event or when ctx ends. A key
// that is not open yet is waited for up to OpenWait; then it is ErrNoStream.
func (h *Hub) Subscribe(ctx context.Context, k Key, from int64) (<-chan Event, error) {
	s, err := h.attach(ctx, k)
	if err != nil {
		return nil, err
	}
	out := make(chan Event, subscriberBuffer)
	go h.feed(ctx, s, max(from, 0), out)
	return out, nil
}

// Close cuts every subscriber off with ErrorHubClosed, drops all streams and
// waits for the subscription goroutines to end. Close the hub before the
// HTTP server that serves Handler, whose shutdown waits for open responses.
func (h *Hub) Close() {
	h.mu.Lock()
	if !h.closed {
		h.closed = true
		for _, s := range h.streams {
			s.abort(ErrorHubClosed)
		}
		h.streams, h.expiries = nil, nil
		if h.sweeper != nil {
			h.sweeper.Stop()
		}
		close(h.done)
	}
	h.mu.Unlock()
	h.subs.Wait()
}

// attach finds k's stream, waiting up to OpenWait for it, and counts a
// subscription on it.
func (h *Hub) attach(ctx context.Context, k Key) (*stream, error) {
	var timeout <-chan time.Time
	for {
		s, opened, err := h.lookup(k)
		if s != nil || err != nil {
			return s, err
		}
		if timeout == nil {
			t := time.NewTimer(h.opts.OpenWait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-opened:
		case <-timeout:
			return nil, ErrNoStream
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-h.done:
			return nil, ErrHubClosed
		}
	}
}

// lookup returns k's stream with a subscription counted on it, or a channel
// closed by the next Open.
func (h *Hub) lookup(k Key) (*stream, <-chan struct{}, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, nil, ErrHubClosed
	}
	h.sweepLocked(h.opts.Now())
	if s := h.streams[k]; s != nil {
		h.subs.Add(1)
		return s, nil, nil
	}
	if h.opened == nil {
		h.opened = make(chan struct{})
	}
	return nil, h.opened, nil
}

// feed copies s's events from cursor on into out until a terminal event,
// the end of ctx or the hub's close.
func (h *Hub) feed(ctx context.Context, s *stream, cursor int64, out chan<- Event) {
	defer h.subs.Done()
	defer close(out)
	for {
		ev, wake := s.at(cursor)
		if wake != nil {
			select {
			case <-wake:
				continue
			case <-ctx.Done():
				return
			case <-h.done:
				offer(out, Event{Seq: cursor, Kind: KindError, Error: ErrorHubClosed})
				return
			}
		}
		select {
		case out <- ev:
		case <-ctx.Done():
			return
		case <-h.done:
			offer(out, Event{Seq: cursor, Kind: KindError, Error: ErrorHubClosed})
			return
		}
		if ev.Terminal() {
			return
		}
		cursor = ev.Seq + 1
	}
}

// offer sends ev if out has room: a subscriber that is not reading gets its
// channel closed without it.
func offer(out chan<- Event, ev Event) {
	select {
	case out <- ev:
	default:
	}
}
