package stream

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tetherdev/tether/signals"
)

// Defaults of HubOptions.
const (
	DefaultMaxEventsPerStream      = 100_000
	DefaultLinger                  = time.Minute
	DefaultPingEvery               = 15 * time.Second
	DefaultMaxSubscribers          = 256
	DefaultMaxSubscribersPerStream = 16
	DefaultFeedTokenTTL            = 10 * time.Minute
)

// subscriberBuffer is the capacity of a subscription's channel. It only
// smooths delivery: a subscriber's real slack is the stream's window.
const subscriberBuffer = 64

var (
	// ErrNoStream: no stream with that key and token, or it finished longer
	// than Linger ago (signals.ErrNoStream).
	ErrNoStream = signals.ErrNoStream
	// ErrHubClosed: the hub is closed.
	ErrHubClosed = errors.New("stream hub closed")
	// ErrHubBusy: the hub serves MaxSubscribers subscriptions already (over
	// HTTP also: it is shutting down). Try again later.
	ErrHubBusy = signals.ErrHubBusy
	// ErrStreamBusy: the stream has MaxSubscribersPerStream subscriptions
	// already. Only a holder of the stream's token ever gets it.
	ErrStreamBusy = signals.ErrStreamBusy
)

// HubOptions configures a Hub. Zero values take the defaults.
type HubOptions struct {
	// MaxEventsPerStream is the window each stream keeps; older events are
	// dropped and a subscriber that still needs them gets ErrorLagged.
	MaxEventsPerStream int
	// Linger is how long a finished stream stays readable. Negative means
	// it goes at once.
	Linger time.Duration
	// PingEvery is how often Handler sends a comment on an idle response,
	// keeping proxies from closing it.
	PingEvery time.Duration
	// MaxSubscribers bounds the subscriptions of the whole hub, and so the
	// long-lived responses its handler holds open.
	MaxSubscribers int
	// MaxSubscribersPerStream bounds the subscriptions of one stream, so one
	// token holder cannot take the whole hub.
	MaxSubscribersPerStream int
	// FeedTokenTTL is how long a feed token Feed hands out opens a
	// subscription, and how long a subscription it opened lasts: a reader
	// who once held it follows the agent no longer than that, then must
	// ask the agent again (the feed query, which needs read access). Feed
	// mints a new token once the newest is past half its life.
	FeedTokenTTL time.Duration
	// Now is the clock Linger and FeedTokenTTL are measured with.
	Now func() time.Time
}

func (o HubOptions) withDefaults() HubOptions {
	if o.MaxEventsPerStream <= 0 {
		o.MaxEventsPerStream = DefaultMaxEventsPerStream
	}
	if o.Linger == 0 {
		o.Linger = DefaultLinger
	}
	if o.PingEvery <= 0 {
		o.PingEvery = DefaultPingEvery
	}
	if o.MaxSubscribers <= 0 {
		o.MaxSubscribers = DefaultMaxSubscribers
	}
	if o.MaxSubscribersPerStream <= 0 {
		o.MaxSubscribersPerStream = DefaultMaxSubscribersPerStream
	}
	if o.FeedTokenTTL <= 0 {
		o.FeedTokenTTL = DefaultFeedTokenTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Linger = max(o.Linger, 0)
	return o
}

// Hub holds the live streams of one worker in memory. It is safe for
// concurrent use. Each subscription runs one goroutine that copies events
// from the stream's window to the subscriber's channel; Close stops them all.
//
// Every stream has a capability token minted when it opens (Writer.Token):
// only a subscriber presenting it reads the stream. The hub never waits for
// a stream to open: no one can hold the token of a stream that is not open
// yet, so waiting would only let strangers hold connections.
type Hub struct {
	opts HubOptions
	done chan struct{} // closed by Close
	subs sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	streams  map[Key]*stream
	feeds    map[string]*agentFeed // by agent
	active   int                   // subscriptions of the whole hub
	expiries []expiry              // finished streams and idle feeds, oldest first
	sweeper  *time.Timer
}

// expiry is when a finished call's stream (s) or an idle feed (f) goes.
type expiry struct {
	s  *stream
	f  *agentFeed
	at time.Time
}

// NewHub returns an empty hub. Close it when the worker stops.
func NewHub(opts HubOptions) *Hub {
	return &Hub{
		opts:    opts.withDefaults(),
		done:    make(chan struct{}),
		streams: make(map[Key]*stream),
		feeds:   make(map[string]*agentFeed),
	}
}

// Open starts the stream of k under a fresh token, and the call in its
// agent's feed. Opening a key that is already open replaces the old stream:
// its subscribers get ErrorReplaced, its Writer goes quiet and its token
// reads nothing more. After Close it returns a Writer that discards
// everything.
func (h *Hub) Open(k Key) *Writer {
	s := newStream(k, newToken(), h.opts.MaxEventsPerStream)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		s.abort(ErrorHubClosed)
		return &Writer{hub: h, s: s}
	}
	h.sweepLocked(h.opts.Now())
	if old := h.streams[k]; old != nil && old.abort(ErrorReplaced) && old.feed != nil {
		old.feed.open--
		h.idleLocked(old.feed)
	}
	h.streams[k] = s
	h.openCallLocked(s)
	return &Writer{hub: h, s: s}
}

// Subscribe returns k's events from Seq from on: the buffered ones, then live
// ones, if token is the stream's. The channel closes after a terminal event
// or when ctx ends. It fails at once with ErrNoStream (unknown key or wrong
// token alike), ErrHubBusy, ErrStreamBusy or ErrHubClosed.
func (h *Hub) Subscribe(ctx context.Context, k Key, token string, from int64) (<-chan Event, error) {
	s, err := h.attach(k, token)
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
		for _, f := range h.feeds {
			f.s.abort(ErrorHubClosed)
		}
		h.streams, h.feeds, h.expiries = nil, nil, nil
		if h.sweeper != nil {
			h.sweeper.Stop()
		}
		close(h.done)
	}
	h.mu.Unlock()
	h.subs.Wait()
}

// attach finds k's stream, checks token and the limits, and counts a
// subscription on it. The token is compared even when the key is unknown,
// so both refusals cost the same.
func (h *Hub) attach(k Key, token string) (*stream, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrHubClosed
	}
	h.sweepLocked(h.opts.Now())
	s := h.streams[k]
	want := unknownStreamToken
	if s != nil {
		want = s.token
	}
	switch {
	case !sameToken(token, want) || s == nil:
		return nil, ErrNoStream
	case h.active >= h.opts.MaxSubscribers:
		return nil, ErrHubBusy
	case s.subscribers >= h.opts.MaxSubscribersPerStream:
		return nil, ErrStreamBusy
	}
	h.active++
	s.subscribers++
	h.subs.Add(1)
	return s, nil
}

// unknownStreamToken is compared against when a key has no stream, so that
// an unknown key costs the same comparison as a wrong token.
var unknownStreamToken = newToken()

// detach uncounts a subscription of s; a feed nobody uses starts lingering.
func (h *Hub) detach(s *stream) {
	h.mu.Lock()
	h.active--
	s.subscribers--
	if s.self != nil {
		h.idleLocked(s.self)
	}
	h.mu.Unlock()
	h.subs.Done()
}

// feed copies s's events from cursor on into out until a terminal event,
// the end of ctx or the hub's close.
func (h *Hub) feed(ctx context.Context, s *stream, cursor int64, out chan<- Event) {
	defer h.detach(s)
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
