package activities

import (
	"container/list"
	"fmt"
	"sync"

	"github.com/tetherdev/tether/eventlog"
)

// logCache holds one logEntry per agent run, least recently used first out
// once their bytes pass the budget.
//
// Locks: cache.mu guards the list, the index and every entry's size and
// gone; an entry's mu serialises its folds (held across a query); its
// snapMu guards its snapshot and is never held across I/O or a fold, so a
// workflow publishing never waits for a reader. Order: entry.mu, then
// snapMu, then cache.mu; the cache never takes an entry's locks.
type logCache struct {
	budget int64

	mu    sync.Mutex
	total int64
	lru   *list.List // of *logEntry, most recent first
	index map[string]*list.Element
}

func newLogCache(budget int64) logCache {
	return logCache{budget: budget, lru: list.New(), index: map[string]*list.Element{}}
}

type logEntry struct {
	key string
	// Accounted bytes of the fold and the snapshot, and whether the entry
	// was evicted; guarded by the cache's mu.
	fold, snapBytes int64
	gone            bool

	mu sync.Mutex // serialises folds of this run
	// conv is the fold of events [0, conv.Position()).
	conv *eventlog.Conversation
	// asks holds recent assistant messages by seq, for tool arguments.
	asks map[int64]eventlog.AssistantMessage
	// header is the last request/header folded since the run's seed (nil
	// before one), for model calls that leave their configuration to it.
	header *eventlog.RequestHeader

	snapMu sync.Mutex
	snap   snapshot
}

// entryOverhead is what an entry costs beyond the bytes of its content.
const entryOverhead = 1 << 10

// entry returns the run's entry, made most recently used.
func (c *logCache) entry(agentID, runID string) *logEntry {
	key := agentID + "\x00" + runID
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[key]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*logEntry)
	}
	e := &logEntry{key: key}
	e.reset()
	c.index[key] = c.lru.PushFront(e)
	c.total += entryOverhead
	c.evict(e)
	return e
}

// lookup returns the run's entry if the cache has one.
func (c *logCache) lookup(agentID, runID string) *logEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[agentID+"\x00"+runID]; ok {
		return el.Value.(*logEntry)
	}
	return nil
}

// setFold accounts the bytes of e's fold (call with e.mu held), setSnap
// those of its snapshot (with e.snapMu held); either may evict other runs.
func (c *logCache) setFold(e *logEntry, n int64) { c.account(e, &e.fold, n) }

func (c *logCache) setSnap(e *logEntry, n int64) { c.account(e, &e.snapBytes, n) }

func (c *logCache) account(e *logEntry, field *int64, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.gone {
		return
	}
	c.total += n - *field
	*field = n
	c.evict(e)
}

// evict drops least recently used entries other than keep while the cache
// is over budget.
func (c *logCache) evict(keep *logEntry) {
	for c.total > c.budget {
		el := c.lru.Back()
		v := el.Value.(*logEntry)
		if v == keep {
			return
		}
		c.lru.Remove(el)
		delete(c.index, v.key)
		v.gone = true
		c.total -= entryOverhead + v.fold + v.snapBytes
	}
}

// Bytes is what the cache holds, as it accounts it.
func (c *logCache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// foldBytes is what e's fold holds; call with e.mu held.
func (e *logEntry) foldBytes() int64 {
	n := int64(e.conv.Chars())
	for _, a := range e.asks {
		for _, c := range a.ToolCalls {
			n += int64(len(c.Arguments))
		}
	}
	return n
}

// reset empties e's fold; call with e.mu held (or before e is shared).
func (e *logEntry) reset() {
	e.conv, e.asks, e.header = &eventlog.Conversation{}, map[int64]eventlog.AssistantMessage{}, nil
}

// apply folds envs, the events from seq from on; call with e.mu held.
func (e *logEntry) apply(envs []eventlog.Envelope, from int64) error {
	for i, env := range envs {
		if env.Seq != from+int64(i) {
			return fmt.Errorf("log page out of order: seq %d at position %d", env.Seq, from+int64(i))
		}
		ev, err := eventlog.Decode(env)
		if err != nil {
			return err
		}
		if a, ok := ev.(eventlog.AssistantMessage); ok && len(a.ToolCalls) > 0 {
			clear(e.asks) // only the latest tool-calling message is needed
			e.asks[env.Seq] = a
		}
		if h, ok := ev.(eventlog.RequestHeader); ok {
			e.header = &h
		}
		e.conv.Apply(ev)
	}
	return nil
}
