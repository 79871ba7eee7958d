package stream

import (
	"context"
	"net/url"
	"time"

	"github.com/tetherdev/tether/signals"
)

// An agent's feed is every model call the hub streams for one agent, in
// one stream: each call opens with a "call" event naming it, then its
// chunks and its done or error event, each naming the call too. A client
// that subscribes to the feed before a turn starts (or names the turn, and
// arrives while the hub still holds it) sees every chunk of every call of
// the turn in order, however short the calls: it needs no call's locator
// in time. The feed lives while a call streams or a subscriber reads it,
// and Linger after both ended; it has its own token, minted when it is
// made, which the agent's workflow hands out through FeedQuery (never to
// history), so only those who may read the workflow can follow the agent.

// feedPrefix is where Handler serves feeds; FeedPath starts with it.
const feedPrefix = "/agents/"

// FeedPath is the URL path of agent's feed under a server that mounts
// Handler at its root.
func FeedPath(agent string) string { return feedPrefix + url.PathEscape(agent) }

// agentFeed is one agent's feed. open and idleAt are guarded by the hub's
// mu, starts by s's mu.
type agentFeed struct {
	agent  string
	s      *stream
	open   int       // calls streaming now
	idleAt time.Time // when it last had no open call and no subscriber
	starts []callStart
	tokens []feedToken // unexpired, newest last; guarded by the hub's mu
}

// feedToken is a token of a feed and when it stops opening subscriptions
// (and ends those it opened).
type feedToken struct {
	token   string
	expires time.Time
}

// callStart is where a call of the feed starts, for subscribers naming a
// turn.
type callStart struct {
	seq  int64
	turn int
}

// Feed returns the path and token of agent's feed, making the feed if the
// hub has none.
func (h *Hub) Feed(agent string) (path, token string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return FeedPath(agent), newToken() // reads nothing
	}
	return FeedPath(agent), h.feedLocked(agent).tokenLocked(h.opts.Now(), h.opts.FeedTokenTTL)
}

// tokenLocked drops f's expired tokens and returns its newest, minting one
// when none is left or the newest is past half its life, so a token handed
// out always has at least half of ttl to run.
func (f *agentFeed) tokenLocked(now time.Time, ttl time.Duration) string {
	n := 0
	for n < len(f.tokens) && !now.Before(f.tokens[n].expires) {
		n++
	}
	f.tokens = f.tokens[n:]
	if len(f.tokens) == 0 || f.tokens[len(f.tokens)-1].expires.Sub(now) < ttl/2 {
		f.tokens = append(f.tokens, feedToken{token: newToken(), expires: now.Add(ttl)})
	}
	return f.tokens[len(f.tokens)-1].token
}

// expiryLocked is when token, if it is one of f's unexpired tokens, stops
// working. Every token is compared, in constant time.
func (f *agentFeed) expiryLocked(token string, now time.Time) (time.Time, bool) {
	var exp time.Time
	ok := false
	for _, t := range f.tokens {
		if sameToken(token, t.token) && now.Before(t.expires) {
			exp, ok = t.expires, true
		}
	}
	return exp, ok
}

// feedLocked returns agent's feed, made idle if it is new.
func (h *Hub) feedLocked(agent string) *agentFeed {
	h.sweepLocked(h.opts.Now())
	if f := h.feeds[agent]; f != nil {
		return f
	}
	f := &agentFeed{agent: agent, s: newStream(Key{Agent: agent}, newToken(), h.opts.MaxEventsPerStream)}
	f.s.self = f
	h.feeds[agent] = f
	h.idleLocked(f)
	return f
}

// openCall adds the call of s (just opened) to its agent's feed.
func (h *Hub) openCallLocked(s *stream) {
	f := h.feedLocked(s.key.Agent)
	f.open++
	s.feed, s.call = f, &CallRef{Activity: s.key.Activity, Attempt: s.key.Attempt}
	turn, _, _ := signals.ParseModelActivityID(s.key.Activity)
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	f.trimLocked()
	f.starts = append(f.starts, callStart{seq: f.s.next, turn: turn})
	f.s.appendLocked(Event{Kind: KindCall, Call: s.call})
}

// trimLocked forgets the starts of calls that left the window.
func (f *agentFeed) trimLocked() {
	n := 0
	for n < len(f.starts) && f.starts[n].seq < f.s.first {
		n++
	}
	f.starts = f.starts[n:]
}

// callClosed counts a call of f as ended.
func (h *Hub) callClosed(f *agentFeed) {
	if f == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	f.open--
	h.idleLocked(f)
}

// idleLocked starts f's linger once nothing uses it.
func (h *Hub) idleLocked(f *agentFeed) {
	if f.open > 0 || f.s.subscribers > 0 || h.closed {
		return
	}
	f.idleAt = h.opts.Now()
	h.scheduleLocked(expiry{f: f, at: f.idleAt.Add(h.opts.Linger)})
}

// SubscribeFeed returns agent's feed from Seq from on, or, when turn > 0,
// from the first call it holds of that turn or a later one (its end when
// it holds none). The channel closes only when ctx ends, the token
// expires, the subscriber lags out of the window or the hub closes. It
// fails like Subscribe, and with ErrNoStream for an expired token.
func (h *Hub) SubscribeFeed(ctx context.Context, agent, token string, from int64, turn int) (<-chan Event, error) {
	f, ttl, err := h.attachFeed(agent, token)
	if err != nil {
		return nil, err
	}
	if turn > 0 {
		from = f.from(turn)
	}
	out := make(chan Event, subscriberBuffer)
	ctx, cancel := context.WithTimeout(ctx, ttl)
	go func() {
		defer cancel()
		h.feed(ctx, f.s, max(from, 0), out)
	}()
	return out, nil
}

// attachFeed finds agent's feed, checks token and the limits, and counts a
// subscription on it, as attach does for a call's stream. It returns how
// long the token has left to run.
func (h *Hub) attachFeed(agent, token string) (*agentFeed, time.Duration, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, 0, ErrHubClosed
	}
	now := h.opts.Now()
	h.sweepLocked(now)
	f := h.feeds[agent]
	var exp time.Time
	ok := false
	if f != nil {
		exp, ok = f.expiryLocked(token, now)
	} else {
		sameToken(token, unknownStreamToken) // an unknown agent costs a comparison too
	}
	switch {
	case !ok:
		return nil, 0, ErrNoStream
	case h.active >= h.opts.MaxSubscribers:
		return nil, 0, ErrHubBusy
	case f.s.subscribers >= h.opts.MaxSubscribersPerStream:
		return nil, 0, ErrStreamBusy
	}
	h.active++
	f.s.subscribers++
	h.subs.Add(1)
	return f, exp.Sub(now), nil
}

// from is the Seq where f's first call of turn or later starts, or f's end.
func (f *agentFeed) from(turn int) int64 {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	f.trimLocked()
	for _, c := range f.starts {
		if c.turn >= turn {
			return c.seq
		}
	}
	return f.s.next
}
