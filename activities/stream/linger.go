package stream

import "time"

// retire schedules a finished stream's removal after Linger.
func (h *Hub) retire(s *stream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.streams[s.key] != s {
		return
	}
	h.scheduleLocked(expiry{s: s, at: h.opts.Now().Add(h.opts.Linger)})
}

// scheduleLocked queues e (always Linger from now, so the queue stays in
// order) and arms the sweeper.
func (h *Hub) scheduleLocked(e expiry) {
	h.expiries = append(h.expiries, e)
	if h.sweeper == nil {
		h.sweeper = time.AfterFunc(max(h.opts.Linger, 0), h.sweep)
	}
}

// sweep runs on the sweeper timer and re-arms it for the next expiry, so an
// idle hub still lets go of finished streams. Open and Subscribe sweep too,
// which is what makes expiry exact under an injected clock.
func (h *Hub) sweep() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	now := h.opts.Now()
	h.sweepLocked(now)
	if len(h.expiries) == 0 {
		h.sweeper = nil
		return
	}
	h.sweeper.Reset(h.expiries[0].at.Sub(now))
}

// sweepLocked removes the streams that expired by now, and the feeds that
// stayed unused since their expiry was set. Subscribers already reading a
// call's stream keep reading it to its end.
func (h *Hub) sweepLocked(now time.Time) {
	n := 0
	for _, e := range h.expiries {
		if now.Before(e.at) {
			break
		}
		switch {
		case e.s != nil && h.streams[e.s.key] == e.s:
			delete(h.streams, e.s.key)
		case e.f != nil && h.feeds[e.f.agent] == e.f && e.f.open == 0 && e.f.s.subscribers == 0 &&
			!now.Before(e.f.idleAt.Add(h.opts.Linger)):
			delete(h.feeds, e.f.agent)
		}
		n++
	}
	clear(h.expiries[:n])
	h.expiries = h.expiries[n:]
}
