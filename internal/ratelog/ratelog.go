// Package ratelog bounds how often one log message is written: a slog
// handler that passes the first Burst records of a message per Every, drops
// the rest, and writes one summary line saying how many it dropped.
//
// The worker's Temporal SDK logger goes through it: the SDK logs an ERROR
// line for every signal it cannot decode ("Deserialization error. Corrupted
// signal received on channel ..."), so anyone who may signal an agent could
// otherwise fill the worker's log, 1,336 lines from one probe.
//
// Records below MinLevel pass untouched. Messages are keys, which is why
// house style keeps them constant; at most MaxKeys are tracked, and the
// records of any further message share one budget, so varying messages
// (the SDK's name a signal channel) cannot get around the limit.
package ratelog

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Defaults of Options.
const (
	DefaultBurst   = 20
	DefaultEvery   = time.Minute
	DefaultMaxKeys = 256
	// SuppressedMessage is the summary line's message; its attributes are
	// "message", "level", "suppressed" and "interval".
	SuppressedMessage = "Log messages suppressed"
)

// Options configure New; zero fields take the defaults, and the zero
// MinLevel is slog.LevelInfo.
type Options struct {
	Burst    int
	Every    time.Duration
	MaxKeys  int
	MinLevel slog.Level
}

type key struct {
	level slog.Level
	msg   string // "" for the shared budget of untracked messages
}

type window struct {
	start      time.Time
	passed     int
	suppressed int
	timer      *time.Timer
}

// state is shared by a handler and those derived from it (WithAttrs,
// WithGroup): one budget per message whatever its attributes.
type state struct {
	o    Options
	root slog.Handler // writes the summaries

	mu   sync.Mutex
	keys map[key]*window
}

type handler struct {
	next slog.Handler
	s    *state
}

// New wraps next.
func New(next slog.Handler, o Options) slog.Handler {
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.Every <= 0 {
		o.Every = DefaultEvery
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = DefaultMaxKeys
	}
	return &handler{next: next, s: &state{o: o, root: next, keys: map[key]*window{}}}
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &handler{next: h.next.WithAttrs(attrs), s: h.s}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{next: h.next.WithGroup(name), s: h.s}
}

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < h.s.o.MinLevel || h.s.admit(r.Level, r.Message) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

// admit counts one record of msg and says whether it may be written.
func (s *state) admit(level slog.Level, msg string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.key(level, msg)
	now := time.Now()
	w := s.keys[k]
	if w == nil || now.Sub(w.start) >= s.o.Every {
		if w != nil {
			s.flushLocked(k, w)
		}
		w = &window{start: now}
		s.keys[k] = w
	}
	if w.passed < s.o.Burst {
		w.passed++
		return true
	}
	if w.suppressed++; w.timer == nil {
		w.timer = time.AfterFunc(w.start.Add(s.o.Every).Sub(now), func() { s.flush(k, w) })
	}
	return false
}

// key is msg's key, or the shared one once MaxKeys messages are tracked
// (after forgetting those whose window is over).
func (s *state) key(level slog.Level, msg string) key {
	k := key{level: level, msg: msg}
	if _, ok := s.keys[k]; ok || len(s.keys) < s.o.MaxKeys {
		return k
	}
	now := time.Now()
	for old, w := range s.keys {
		if now.Sub(w.start) >= s.o.Every && w.suppressed == 0 {
			delete(s.keys, old)
		}
	}
	if len(s.keys) < s.o.MaxKeys {
		return k
	}
	return key{level: level}
}

// flush writes the summary of w, if it dropped anything, when its window
// ends.
func (s *state) flush(k key, w *window) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked(k, w)
}

func (s *state) flushLocked(k key, w *window) {
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if w.suppressed == 0 {
		return
	}
	msg := k.msg
	if msg == "" {
		msg = "(other messages)"
	}
	r := slog.NewRecord(time.Now(), k.level, SuppressedMessage, 0)
	r.AddAttrs(slog.String("message", msg), slog.String("level", k.level.String()),
		slog.Int("suppressed", w.suppressed), slog.Duration("interval", s.o.Every))
	w.suppressed = 0
	_ = s.root.Handle(context.Background(), r)
}
