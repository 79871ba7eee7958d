package activities

import (
	"slices"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// snapshot is what the agent workflow published of its run in this process
// that no fold has taken yet: consecutive events from seq from, and for a
// continued run the conversation before its first event. Envelopes are
// immutable once published, so a fold reads them outside snapMu.
type snapshot struct {
	events []eventlog.Envelope
	from   int64
	base   *eventlog.ConversationSnapshot
	bytes  int64
}

// envelopeOverhead is what an envelope costs beyond its data and ref.
const envelopeOverhead = 96

// Publish takes a page of an agent run's session log from the workflow
// running it in this process (it implements workflows.Snapshots). It never
// blocks on a reader: a fold reads published events outside the lock that
// Publish takes. The snapshot of a run holds at most an eighth of the
// reader's budget; what falls out is read with the log query instead.
func (r *LogReader) Publish(agentID, runID string, page signals.LogPage) {
	e := r.cache.entry(agentID, runID)
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	e.snap.add(page)
	e.snap.trim(r.cache.budget / 8)
	r.cache.setSnap(e, e.snap.bytes)
}

// Forget drops what the run's workflow published (it implements
// workflows.Snapshots): the instance is gone from this worker, and a new
// one publishes the log from its start again. The fold stays: it holds
// only events an activity was scheduled with, which history holds too.
func (r *LogReader) Forget(agentID, runID string) {
	e := r.cache.lookup(agentID, runID)
	if e == nil {
		return
	}
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	e.snap = snapshot{}
	r.cache.setSnap(e, 0)
}

// add appends page. An instance's first page (from 0, or with the
// context of a continued run) starts the snapshot over, and so does a
// page that does not follow on (the entry was evicted meanwhile).
func (s *snapshot) add(page signals.LogPage) {
	first := page.Next - int64(len(page.Events))
	if page.Context != nil || first == 0 || first != s.from+int64(len(s.events)) {
		*s = snapshot{from: first, base: page.Context}
		if page.Context != nil {
			s.bytes += contextBytes(*page.Context)
		}
	}
	s.events = append(s.events, page.Events...)
	for _, env := range page.Events {
		s.bytes += envBytes(env)
	}
}

// trim drops the oldest events (the base first) while s holds more than max
// bytes.
func (s *snapshot) trim(max int64) {
	if s.bytes <= max {
		return
	}
	if s.base != nil {
		s.bytes -= contextBytes(*s.base)
		s.base = nil
	}
	n := 0
	for n < len(s.events) && s.bytes > max {
		s.bytes -= envBytes(s.events[n])
		n++
	}
	s.drop(s.from + int64(n))
}

// drop forgets the events before seq to, and the base once the fold is
// past it. The rest is copied, never cleared in place: a fold may still be
// reading the old slice.
func (s *snapshot) drop(to int64) {
	if s.base != nil && to >= s.base.Position {
		s.bytes -= contextBytes(*s.base)
		s.base = nil
	}
	n := min(max(to-s.from, 0), int64(len(s.events)))
	if n == 0 {
		return
	}
	for _, env := range s.events[:n] {
		s.bytes -= envBytes(env)
	}
	s.events, s.from = slices.Clone(s.events[n:]), s.from+n
}

// fromSnapshot folds what e's snapshot holds of [position, upto) and
// reports whether the fold moved; call with e.mu held.
func (r *LogReader) fromSnapshot(e *logEntry, upto int64) (bool, error) {
	e.snapMu.Lock()
	pos, start := e.conv.Position(), e.conv.Position()
	base := e.snap.base
	if base != nil && pos < base.Position { // a continued run's fold starts at its base
		if pos != 0 {
			base = nil
		} else {
			start = base.Position
		}
	} else {
		base = nil
	}
	var envs []eventlog.Envelope
	if end := min(upto, e.snap.from+int64(len(e.snap.events))); start >= e.snap.from && start < end {
		envs = e.snap.events[start-e.snap.from : end-e.snap.from]
	}
	e.snapMu.Unlock()
	if base == nil && envs == nil {
		return false, nil
	}
	if base != nil {
		e.conv, e.header = eventlog.RestoreConversation(*base), nil
	}
	if err := e.apply(envs, start); err != nil {
		e.reset()
		return false, err
	}
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	e.snap.drop(e.conv.Position())
	r.cache.setSnap(e, e.snap.bytes)
	return true, nil
}

// snapshotFrom is the seq of the first event e's snapshot holds, if any.
func (e *logEntry) snapshotFrom() (int64, bool) {
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	return e.snap.from, len(e.snap.events) > 0
}

func envBytes(env eventlog.Envelope) int64 {
	return int64(len(env.Data)+len(env.Ref)) + envelopeOverhead
}

func contextBytes(c eventlog.ConversationSnapshot) int64 {
	n := int64(len(c.System)) + envelopeOverhead
	for _, m := range c.Messages {
		n += int64(len(m.Content)) + envelopeOverhead
		for _, tc := range m.ToolCalls {
			n += int64(len(tc.Arguments) + len(tc.Name))
		}
	}
	return n
}
