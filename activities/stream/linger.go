package stream

import "time"

// retire schedules a finished stream's removal after Linger.
func (h *Hub) retire(s *stream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.streams[s.key] != s {
		return
	}
	h.expiries = append(h.expiries, expiry{s: s, at: h.opts.Now().Add(h.opts.Linger)})
	if h.sweeper == nil {
		h.sweeper = time.AfterFunc(h.opts.Linger, h.sweep)
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

// sweepLocked removes the streams that expired by now. Subscribers already
// reading one keep reading it to its end.
func (h *Hub) sweepLocked(now time.Time) {
	n := 0
	for _, e := range h.expiries {
		if now.Before(e.at) {
			break
		}
		if h.streams[e.s.key] == e.s {
			delete(h.streams, e.s.key)
		}
		n++
	}
	clear(h.expiries[:n])
	h.expiries = h.expiries[n:]
}
