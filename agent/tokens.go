package agent

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"go.temporal.io/api/serviceerror"

	"github.com/tetherdev/tether/signals"
)

// TokenKind says what a TokenEvent carries.
type TokenKind string

const (
	// TokenChunk is a live delta of the model call in flight.
	TokenChunk TokenKind = "chunk"
	// TokenReset says the attempt failed: discard its partial output. A
	// retry, if any, streams from scratch.
	TokenReset TokenKind = "reset"
	// TokenDone ends one model call's stream; its settled message is in the
	// session log.
	TokenDone TokenKind = "done"
)

// TokenEvent is one live event of an agent's model calls. Token events are
// transient: the durable fact is the assistant message in the log.
type TokenEvent struct {
	Kind    TokenKind     `json:"kind"`
	Turn    int           `json:"turn"`
	Step    int           `json:"step"`
	Attempt int32         `json:"attempt"`
	Chunk   signals.Chunk `json:"chunk,omitempty"`
}

// TokenOption changes where Tokens starts.
type TokenOption func(*tokenOptions)

type tokenOptions struct{ turn int }

// FromTurn starts at the first model call of turn (or of a later one)
// that the worker still holds, a minute after the agent's last call: a
// client that creates an agent or sends it a message and then asks for
// its tokens gets the turn's every call, however quickly they ran.
func FromTurn(turn int) TokenOption { return func(o *tokenOptions) { o.turn = turn } }

// Tokens yields the live chunks of the agent's model calls as they stream,
// call after call, until ctx ends: by default from the turn in flight (or
// the next one) on, every call in order, each call's chunks from its
// first. It asks the agent (the feed query, answered by the worker holding
// it, never written to history) where that worker streams the agent's
// calls and reads that feed (Server-Sent Events, with the feed's token),
// so it needs no broker, and a call over before the client looked is
// still seen. Providers that do not stream yield nothing. A worker
// refusing for load ends the iteration with signals.ErrHubBusy or
// signals.ErrStreamBusy. With a worker that predates feeds, it finds each
// call in flight through its activity's heartbeat details instead.
func (h *Handle) Tokens(ctx context.Context, opts ...TokenOption) iter.Seq2[TokenEvent, error] {
	var o tokenOptions
	for _, f := range opts {
		f(&o)
	}
	return func(yield func(TokenEvent, error) bool) {
		feed, err := query(ctx, h, signals.FeedQuery, struct{}{})
		var failed *serviceerror.QueryFailed
		switch {
		case errors.As(err, &failed): // a worker without the feed query
			h.polledTokens(ctx, yield)
			return
		case err != nil:
			yield(TokenEvent{}, err)
			return
		case feed.URL == "":
			return // the worker streams nothing
		}
		if o.turn == 0 {
			o.turn = feed.Turn
		}
		(&feedReader{h: h, feed: feed, turn: o.turn}).read(ctx, yield)
	}
}

// feedReader follows an agent's feed across reconnections: a broken
// connection resumes where it stopped, a feed that moved (another worker,
// or a new feed after a lull) is read again from the turn it was at,
// skipping calls already yielded to their end.
type feedReader struct {
	h     *Handle
	feed  signals.LiveFeed
	turn  int
	next  int64 // the Seq to resume from; -1 reads from turn
	calls map[signals.CallRef]TokenEvent
	ended map[signals.CallRef]bool
}

func (r *feedReader) read(ctx context.Context, yield func(TokenEvent, error) bool) {
	r.next, r.calls, r.ended = -1, map[signals.CallRef]TokenEvent{}, map[signals.CallRef]bool{}
	backoff := minPoll
	for {
		err := r.readOnce(ctx, yield)
		switch {
		case err == errStop || ctx.Err() != nil:
			return
		case errors.Is(err, signals.ErrHubBusy), errors.Is(err, signals.ErrStreamBusy):
			yield(TokenEvent{}, err)
			return
		}
		if !sleep(ctx, backoff) {
			return
		}
		backoff = min(2*backoff, maxPoll)
		feed, err := query(ctx, r.h, signals.FeedQuery, struct{}{})
		if err != nil {
			if ctx.Err() == nil {
				yield(TokenEvent{}, err)
			}
			return
		}
		if feed.URL != r.feed.URL || feed.Token != r.feed.Token {
			r.feed, r.next = feed, -1 // a new feed: read it from the turn we were at
		}
	}
}

// errStop: the caller stopped the iteration.
var errStop = errors.New("stop")

// readOnce reads one connection to the feed until it breaks.
func (r *feedReader) readOnce(ctx context.Context, yield func(TokenEvent, error) bool) error {
	params := url.Values{}
	if r.next >= 0 {
		params.Set("from", strconv.FormatInt(r.next, 10))
	} else {
		params.Set("turn", strconv.Itoa(r.turn))
	}
	for ev, err := range readEvents(ctx, r.h.streamClient(), r.feed.URL, r.feed.Token, params) {
		if err != nil {
			return err
		}
		r.next = ev.Seq + 1
		if ev.Call == nil { // the endpoint's own error: lagged, or the hub closed
			if ev.Error == signals.StreamLagged {
				r.next = ev.Seq
			}
			return errors.New(ev.Error)
		}
		if te, ok := r.event(ev); ok && !yield(te, nil) {
			return errStop
		}
	}
	return ErrStreamInterrupted
}

// event turns a feed event into what Tokens yields, if anything.
func (r *feedReader) event(ev signals.StreamEvent) (TokenEvent, bool) {
	c := *ev.Call
	if r.ended[c] {
		return TokenEvent{}, false // read to its end before a reconnection
	}
	base, ok := r.calls[c]
	if !ok {
		turn, step, _ := signals.ParseModelActivityID(c.Activity)
		base = TokenEvent{Turn: turn, Step: step, Attempt: c.Attempt}
		r.calls[c] = base
		r.turn = max(r.turn, turn)
	}
	switch ev.Kind {
	case signals.StreamCall:
		// A call seen in part before a reconnection streams again from
		// its start: drop the part.
		base.Kind = TokenReset
		return base, ok
	case signals.StreamChunk:
		base.Kind, base.Chunk = TokenChunk, *ev.Chunk
	case signals.StreamDone:
		base.Kind, r.ended[c] = TokenDone, true
	default:
		base.Kind, r.ended[c] = TokenReset, true
	}
	return base, true
}

// defaultStreamClient reads streams for a Client without WithStreamClient:
// no overall timeout, or it would cut them off; TLS trusts the system.
var defaultStreamClient = &http.Client{}

func (h *Handle) streamClient() *http.Client {
	if h.streams != nil {
		return h.streams
	}
	return defaultStreamClient
}
