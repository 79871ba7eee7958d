package activities

import (
	"container/list"
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// LogQuerier answers one page of an agent run's session log. The worker's
// implementation is a Temporal query on the agent workflow; a page never
// enters history.
type LogQuerier interface {
	QueryLog(ctx context.Context, agentID, runID string, req signals.LogRequest) (signals.LogPage, error)
}

// LogReader gives activities the session log without it being copied into
// their inputs. It keeps, per agent run, the conversation folded so far and
// fetches only the events it has not seen, so a model call at any
// conversation length costs one small query. Safe for concurrent use.
type LogReader struct {
	q   LogQuerier
	max int
	// QueryAttempts and QueryBackoff bound the retries of a failed log
	// query. A query fails for a while when the worker holding the workflow
	// died; the activity heartbeats meanwhile.
	QueryAttempts int
	QueryBackoff  time.Duration

	mu    sync.Mutex
	lru   *list.List // of *logEntry, most recent first
	index map[string]*list.Element
}

type logEntry struct {
	key string
	mu  sync.Mutex // serialises fetches for one run
	// conv is the fold of events [0, conv.Position()).
	conv *eventlog.Conversation
	// asks holds recent assistant messages by seq, for tool arguments.
	asks map[int64]eventlog.AssistantMessage
}

// DefaultLogCacheEntries bounds the runs a LogReader keeps folds for.
const DefaultLogCacheEntries = 4096

// NewLogReader returns a reader over q caching up to maxEntries runs
// (DefaultLogCacheEntries when <= 0).
func NewLogReader(q LogQuerier, maxEntries int) *LogReader {
	if maxEntries <= 0 {
		maxEntries = DefaultLogCacheEntries
	}
	return &LogReader{q: q, max: maxEntries, lru: list.New(), index: map[string]*list.Element{},
		QueryAttempts: DefaultQueryAttempts, QueryBackoff: DefaultQueryBackoff}
}

// Conversation returns the model-facing conversation of ref's log prefix.
func (r *LogReader) Conversation(ctx context.Context, ref signals.LogRef) ([]eventlog.Message, error) {
	e := r.entry(ref)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := r.advance(ctx, e, ref); err != nil {
		return nil, err
	}
	return e.conv.Messages(), nil
}

// Listings returns a copy of the MCP listings recorded in ref's log
// prefix (MCPListings).
func (r *LogReader) Listings(ctx context.Context, ref signals.LogRef) (eventlog.Listings, error) {
	e := r.entry(ref)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := r.advance(ctx, e, ref); err != nil {
		return nil, err
	}
	return maps.Clone(e.conv.Tools()), nil
}

// ToolCall returns the tool call callID of the assistant message at seq.
func (r *LogReader) ToolCall(ctx context.Context, ref signals.LogRef, seq int64, callID string) (eventlog.ToolCallRequest, error) {
	e := r.entry(ref)
	e.mu.Lock()
	defer e.mu.Unlock()
	msg, ok := e.asks[seq]
	if !ok {
		if err := r.advance(ctx, e, signals.LogRef{AgentID: ref.AgentID, RunID: ref.RunID, Upto: seq + 1}); err != nil {
			return eventlog.ToolCallRequest{}, err
		}
		if msg, ok = e.asks[seq]; !ok {
			return eventlog.ToolCallRequest{}, fmt.Errorf("log of %s has no assistant message at seq %d", ref.AgentID, seq)
		}
	}
	for _, c := range msg.ToolCalls {
		if c.ID == callID {
			return c, nil
		}
	}
	return eventlog.ToolCallRequest{}, fmt.Errorf("assistant message %d of %s has no tool call %q", seq, ref.AgentID, callID)
}

// advance folds e up to ref.Upto. A fold that is ahead of ref (a retried
// attempt after a later read) is rebuilt from the start.
func (r *LogReader) advance(ctx context.Context, e *logEntry, ref signals.LogRef) error {
	if e.conv.Position() > ref.Upto {
		e.conv, e.asks = &eventlog.Conversation{}, map[int64]eventlog.AssistantMessage{}
	}
	for e.conv.Position() < ref.Upto {
		from := e.conv.Position()
		page, err := r.query(ctx, ref, signals.LogRequest{From: from, To: ref.Upto})
		if err != nil {
			return fmt.Errorf("read log of %s from %d: %w", ref.AgentID, from, err)
		}
		if page.Context != nil && from < page.Base { // a continued run: start from its seed
			e.conv, from = eventlog.RestoreConversation(*page.Context), page.Base
		}
		if len(page.Events) == 0 && e.conv.Position() < ref.Upto {
			return fmt.Errorf("log of %s ends at %d, before %d", ref.AgentID, page.Len, ref.Upto)
		}
		if err := e.apply(page.Events, from); err != nil {
			return err
		}
	}
	return nil
}

// Defaults of LogReader's retry bounds.
const (
	DefaultQueryAttempts = 6
	DefaultQueryBackoff  = 200 * time.Millisecond
)

// query asks for one page, retrying failures with backoff while ctx lives.
func (r *LogReader) query(ctx context.Context, ref signals.LogRef, req signals.LogRequest) (signals.LogPage, error) {
	delay := r.QueryBackoff
	for attempt := 1; ; attempt++ {
		page, err := r.q.QueryLog(ctx, ref.AgentID, ref.RunID, req)
		if err == nil || attempt >= r.QueryAttempts || ctx.Err() != nil {
			return page, err
		}
		select {
		case <-ctx.Done():
			return page, err
		case <-time.After(delay):
		}
		delay *= 2
	}
}

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
		e.conv.Apply(ev)
	}
	return nil
}

func (r *LogReader) entry(ref signals.LogRef) *logEntry {
	key := ref.AgentID + "\x00" + ref.RunID
	r.mu.Lock()
	defer r.mu.Unlock()
	if el, ok := r.index[key]; ok {
		r.lru.MoveToFront(el)
		return el.Value.(*logEntry)
	}
	e := &logEntry{key: key, conv: &eventlog.Conversation{}, asks: map[int64]eventlog.AssistantMessage{}}
	r.index[key] = r.lru.PushFront(e)
	for r.lru.Len() > r.max {
		last := r.lru.Back()
		r.lru.Remove(last)
		delete(r.index, last.Value.(*logEntry).key)
	}
	return e
}
