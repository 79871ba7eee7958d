package login

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// MaxClients bounds the client addresses a Limiter tracks; past it,
// addresses not yet tracked wait as if they had spent their burst.
const MaxClients = 4096

// Limiter counts wrong tokens per client address, a leaky bucket: each
// client may send burst wrong tokens, then one more every refill.
type Limiter struct {
	burst   float64
	refill  time.Duration
	mu      sync.Mutex
	clients map[string]bucket
}

// bucket is the wrong tokens a client has left as of at.
type bucket struct {
	left float64
	at   time.Time
}

// NewLimiter returns a Limiter of burst wrong tokens, one more every
// refill.
func NewLimiter(burst int, refill time.Duration) *Limiter {
	return &Limiter{burst: float64(burst), refill: refill, clients: map[string]bucket{}}
}

// refilled is b as of now.
func (l *Limiter) refilled(b bucket, now time.Time) bucket {
	b.left = min(l.burst, b.left+float64(now.Sub(b.at))/float64(l.refill))
	b.at = now
	return b
}

// Wait is how long client must wait before its next try; 0 lets it try.
func (l *Limiter) Wait(client string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.clients[client]
	if !ok {
		if len(l.clients) >= MaxClients && !l.pruneLocked(now) {
			return l.refill
		}
		return 0
	}
	b = l.refilled(b, now)
	if b.left >= 1 {
		return 0
	}
	return time.Duration((1 - b.left) * float64(l.refill))
}

// Fail spends one of client's wrong tokens.
func (l *Limiter) Fail(client string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.clients[client]
	if !ok {
		b = bucket{left: l.burst, at: now}
	}
	b = l.refilled(b, now)
	b.left = max(b.left-1, 0)
	l.clients[client] = b
}

// pruneLocked forgets the clients whose bucket is full again, and reports
// whether that made room.
func (l *Limiter) pruneLocked(now time.Time) bool {
	for k, b := range l.clients {
		if l.refilled(b, now).left >= l.burst {
			delete(l.clients, k)
		}
	}
	return len(l.clients) < MaxClients
}

// RetryAfter sets w's Retry-After header to wait in whole seconds, rounded
// up.
func RetryAfter(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
}
