package console

import (
	"sync"
	"time"
)

// Login rate limit: each client address may send loginBurst wrong tokens,
// then one more every loginRefill.
const (
	loginBurst  = 5
	loginRefill = 20 * time.Second
	// maxClients bounds the addresses tracked; past it, addresses not yet
	// tracked wait as if they had spent their burst.
	maxClients = 4096
)

// limiter counts wrong tokens per client address (a leaky bucket). Safe for
// concurrent use.
type limiter struct {
	mu      sync.Mutex
	clients map[string]bucket
}

// bucket is the wrong tokens a client has left as of at.
type bucket struct {
	left float64
	at   time.Time
}

func newLimiter() *limiter { return &limiter{clients: map[string]bucket{}} }

// refilled is b as of now.
func (b bucket) refilled(now time.Time) bucket {
	b.left = min(loginBurst, b.left+float64(now.Sub(b.at))/float64(loginRefill))
	b.at = now
	return b
}

// wait is how long client must wait before its next try; 0 lets it try.
func (l *limiter) wait(client string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.clients[client]
	if !ok {
		if len(l.clients) >= maxClients && !l.pruneLocked(now) {
			return loginRefill
		}
		return 0
	}
	b = b.refilled(now)
	if b.left >= 1 {
		return 0
	}
	return time.Duration((1 - b.left) * float64(loginRefill))
}

// fail spends one of client's wrong tokens.
func (l *limiter) fail(client string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.clients[client]
	if !ok {
		b = bucket{left: loginBurst, at: now}
	}
	b = b.refilled(now)
	b.left = max(b.left-1, 0)
	l.clients[client] = b
}

// pruneLocked forgets the clients whose bucket is full again, and reports
// whether that made room.
func (l *limiter) pruneLocked(now time.Time) bool {
	for k, b := range l.clients {
		if b.refilled(now).left >= loginBurst {
			delete(l.clients, k)
		}
	}
	return len(l.clients) < maxClients
}
