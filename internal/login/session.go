package login

import (
	"crypto/rand"
	"sync"
	"time"
)

// How long a session lasts: SessionTTL at most, SessionIdle unused; past
// MaxSessions a new login ends the session that ends first.
const (
	SessionTTL  = 8 * time.Hour
	SessionIdle = time.Hour
	MaxSessions = 1024
)

// Sessions are the live logins of one process, by random ID.
type Sessions struct {
	mu sync.Mutex
	m  map[string]times
}

// times are when a session ends at the latest and when it was last used.
type times struct{ expires, seen time.Time }

func (t times) liveAt(now time.Time) bool {
	return now.Before(t.expires) && now.Sub(t.seen) < SessionIdle
}

// NewSessions returns an empty set of sessions.
func NewSessions() *Sessions { return &Sessions{m: map[string]times{}} }

// New starts a session and returns its ID, dropping ended ones and, beyond
// MaxSessions, the one that ends first.
func (s *Sessions) New(now time.Time) string {
	id := rand.Text() + rand.Text()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, t := range s.m {
		if !t.liveAt(now) {
			delete(s.m, k)
		}
	}
	for len(s.m) >= MaxSessions {
		delete(s.m, s.firstLocked())
	}
	s.m[id] = times{expires: now.Add(SessionTTL), seen: now}
	return id
}

func (s *Sessions) firstLocked() string {
	var first string
	var at time.Time
	for k, t := range s.m {
		if first == "" || t.expires.Before(at) {
			first, at = k, t.expires
		}
	}
	return first
}

// Live reports whether id is a live session, and counts it used; an ended
// one is forgotten.
func (s *Sessions) Live(id string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.m[id]
	if !ok {
		return false
	}
	if !t.liveAt(now) {
		delete(s.m, id)
		return false
	}
	t.seen = now
	s.m[id] = t
	return true
}

// End ends session id: its cookie no longer works anywhere.
func (s *Sessions) End(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}
