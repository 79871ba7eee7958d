package console

import (
	"context"
	"sync"

	"github.com/tetherdev/tether/agent"
)

// feeds follows agents for live pages: one feed an agent, shared by all its
// viewers, started by the first and stopped when the last leaves.
type feeds struct {
	s      *Server
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	m      map[string]*feed
}

func newFeeds(s *Server) *feeds {
	ctx, cancel := context.WithCancel(context.Background())
	return &feeds{s: s, ctx: ctx, cancel: cancel, m: map[string]*feed{}}
}

func (fs *feeds) close() { fs.cancel() }

// join returns id's feed, starting it for the first viewer; leave it after.
func (fs *feeds) join(h *agent.Handle) *feed {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f := fs.m[h.ID]
	if f == nil {
		ctx, cancel := context.WithCancel(fs.ctx)
		f = &feed{s: fs.s, h: h, ctx: ctx, cancel: cancel, ready: make(chan struct{}), subs: map[chan frame]struct{}{}}
		fs.m[h.ID] = f
		go func() {
			f.run()
			fs.forget(f)
		}()
	}
	f.refs++
	return f
}

func (fs *feeds) leave(f *feed) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f.refs--; f.refs == 0 {
		f.cancel()
		if fs.m[f.h.ID] == f {
			delete(fs.m, f.h.ID)
		}
	}
}

func (fs *feeds) forget(f *feed) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.m[f.h.ID] == f {
		delete(fs.m, f.h.ID)
	}
}
