package chaos

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/tetherdev/tether/agent"
)

// streamKey is one model call attempt of an agent.
type streamKey struct {
	agent      string
	turn, step int
	attempt    int32
}

// streamRead is what a client read of one attempt's stream: its text, and
// whether it read to the end (done) or was told to discard it (reset).
type streamRead struct {
	text        strings.Builder
	done, reset bool
}

// streamTally collects what the token followers read. Safe for concurrent
// use.
type streamTally struct {
	mu                    sync.Mutex
	reads                 map[streamKey]*streamRead
	chunks, resets, fails int
}

func newStreamTally() *streamTally { return &streamTally{reads: map[streamKey]*streamRead{}} }

// follow reads the agent's live tokens until ctx ends, following again
// after each error (a dead worker, a server restart). Each following reads
// a stream from its start, so a stream read again replaces what was read.
func (s *streamTally) follow(ctx context.Context, h *agent.Handle) {
	for ctx.Err() == nil {
		var cur *streamRead
		var curKey streamKey
		for ev, err := range h.Tokens(ctx) {
			if err != nil {
				s.add(func() { s.fails++ })
				break
			}
			key := streamKey{agent: h.ID, turn: ev.Turn, step: ev.Step, attempt: ev.Attempt}
			s.add(func() {
				if cur == nil || key != curKey {
					cur, curKey = &streamRead{}, key
					s.reads[key] = cur
				}
				switch ev.Kind {
				case agent.TokenChunk:
					s.chunks++
					cur.text.WriteString(ev.Chunk.Text)
				case agent.TokenReset:
					s.resets++
					cur.reset = true
				case agent.TokenDone:
					cur.done = true
				}
			})
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (s *streamTally) add(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// complete returns the text of every attempt read to its end without a
// reset, by agent.
func (s *streamTally) complete() map[string]map[streamKey]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]map[streamKey]string{}
	for k, r := range s.reads {
		if !r.done || r.reset {
			continue
		}
		if out[k.agent] == nil {
			out[k.agent] = map[streamKey]string{}
		}
		out[k.agent][k] = r.text.String()
	}
	return out
}
