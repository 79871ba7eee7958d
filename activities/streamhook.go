package activities

import (
	"context"
	"fmt"
	"time"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

// StreamFunc makes one model call, emitting its chunks as they arrive.
type StreamFunc func(ctx context.Context, req llm.Request, emit func(llm.Chunk)) (eventlog.AssistantMessage, error)

// StreamHook is seed 002's llm/stream waterfall: worker-registered code
// around one model call's stream, enabled per agent by name like any hook
// (signals.AgentOptions.Hooks). It runs in the model activity, so unlike
// the loop's hooks it may do I/O. Wrap gets the frozen request, the emit
// that live subscribers see, and next, which runs the rest of the chain
// and then the provider; a hook may filter or add chunks, rewrite the
// assembled message, or answer without calling next. What the chain
// returns is what the session log records.
type StreamHook struct {
	Name string
	Wrap func(ctx context.Context, req llm.Request, emit func(llm.Chunk), next StreamFunc) (eventlog.AssistantMessage, error)
}

// chainStream wraps call in the named hooks, first name outermost.
func chainStream(hooks map[string]StreamHook, names []string, call StreamFunc) (StreamFunc, error) {
	for i := len(names) - 1; i >= 0; i-- {
		h, ok := hooks[names[i]]
		if !ok {
			return nil, fmt.Errorf("stream hook %q is not registered on this worker", names[i])
		}
		next := call
		call = func(ctx context.Context, req llm.Request, emit func(llm.Chunk)) (eventlog.AssistantMessage, error) {
			return h.Wrap(ctx, req, emit, next)
		}
	}
	return call, nil
}

// callTiming measures one model call for the compact timing summary the
// session log keeps instead of the stream itself.
type callTiming struct {
	start  time.Time
	first  time.Duration
	chunks int
}

func startTiming() *callTiming { return &callTiming{start: time.Now()} }

// counting passes chunks on, noting when the first arrived.
func (t *callTiming) counting(emit func(llm.Chunk)) func(llm.Chunk) {
	return func(c llm.Chunk) {
		if t.chunks == 0 {
			t.first = time.Since(t.start)
		}
		t.chunks++
		emit(c)
	}
}

func (t *callTiming) summary() *eventlog.StreamTiming {
	s := &eventlog.StreamTiming{Ms: time.Since(t.start).Milliseconds(), Chunks: t.chunks}
	if t.chunks > 0 {
		s.FirstMs = max(t.first.Milliseconds(), 0)
	}
	return s
}
