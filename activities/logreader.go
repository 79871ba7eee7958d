package activities

import (
	"context"
	"fmt"
	"maps"
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
// folds only the events it has not seen. Those come from the snapshot the
// agent workflow publishes in this process (Publish: no round trip) when
// the workflow runs in this worker, and from the workflow's log query
// otherwise, so a model call at any conversation length costs at most one
// small query. The folds and snapshots of all runs share one byte budget,
// least recently used runs going first. Safe for concurrent use.
type LogReader struct {
	q LogQuerier
	// QueryAttempts and QueryBackoff bound the retries of a failed log
	// query. A query fails for a while when the worker holding the workflow
	// died; the activity heartbeats meanwhile.
	QueryAttempts int
	QueryBackoff  time.Duration

	cache logCache
}

// DefaultLogCacheBytes bounds what a LogReader keeps: folded conversations
// and published snapshots of every run it serves.
const DefaultLogCacheBytes = 256 << 20

// NewLogReader returns a reader over q keeping at most budget bytes of
// folds and snapshots (DefaultLogCacheBytes when <= 0).
func NewLogReader(q LogQuerier, budget int64) *LogReader {
	if budget <= 0 {
		budget = DefaultLogCacheBytes
	}
	return &LogReader{q: q, QueryAttempts: DefaultQueryAttempts, QueryBackoff: DefaultQueryBackoff,
		cache: newLogCache(budget)}
}

// CacheBytes is what the reader holds, folds and snapshots, as it
// accounts them against its budget.
func (r *LogReader) CacheBytes() int64 { return r.cache.Bytes() }

// Conversation returns the model-facing conversation of ref's log prefix.
func (r *LogReader) Conversation(ctx context.Context, ref signals.LogRef) ([]eventlog.Message, error) {
	e := r.cache.entry(ref.AgentID, ref.RunID)
	e.mu.Lock()
	defer e.mu.Unlock()
	err := r.advance(ctx, e, ref)
	r.cache.setFold(e, e.foldBytes())
	if err != nil {
		return nil, err
	}
	return e.conv.Messages(), nil
}

// Listings returns a copy of the MCP listings recorded in ref's log
// prefix (MCPListings).
func (r *LogReader) Listings(ctx context.Context, ref signals.LogRef) (eventlog.Listings, error) {
	e := r.cache.entry(ref.AgentID, ref.RunID)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := r.advance(ctx, e, ref); err != nil {
		return nil, err
	}
	return maps.Clone(e.conv.Tools()), nil
}

// Header returns the last request/header of ref's log prefix recorded in
// ref's run (a seed does not carry one), and false when there is none.
func (r *LogReader) Header(ctx context.Context, ref signals.LogRef) (eventlog.RequestHeader, bool, error) {
	e := r.cache.entry(ref.AgentID, ref.RunID)
	e.mu.Lock()
	defer e.mu.Unlock()
	err := r.advance(ctx, e, ref)
	r.cache.setFold(e, e.foldBytes())
	if err != nil || e.header == nil {
		return eventlog.RequestHeader{}, false, err
	}
	return *e.header, true, nil
}

// ToolCall returns the tool call callID of the assistant message at seq.
func (r *LogReader) ToolCall(ctx context.Context, ref signals.LogRef, seq int64, callID string) (eventlog.ToolCallRequest, error) {
	e := r.cache.entry(ref.AgentID, ref.RunID)
	e.mu.Lock()
	defer e.mu.Unlock()
	msg, ok := e.asks[seq]
	if !ok {
		err := r.advance(ctx, e, signals.LogRef{AgentID: ref.AgentID, RunID: ref.RunID, Upto: seq + 1})
		r.cache.setFold(e, e.foldBytes())
		if err != nil {
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

// advance folds e up to ref.Upto, from the published snapshot where it
// holds the events and with the log query where it does not. A fold that is
// ahead of ref (a retried attempt after a later read) is rebuilt from the
// start.
func (r *LogReader) advance(ctx context.Context, e *logEntry, ref signals.LogRef) error {
	if e.conv.Position() > ref.Upto {
		e.reset()
	}
	for e.conv.Position() < ref.Upto {
		moved, err := r.fromSnapshot(e, ref.Upto)
		if err != nil {
			return err
		}
		if moved {
			continue
		}
		if err := r.fromQuery(ctx, e, ref); err != nil {
			return err
		}
	}
	return nil
}

// fromQuery folds one page of the log query, asking only for what the
// snapshot does not hold.
func (r *LogReader) fromQuery(ctx context.Context, e *logEntry, ref signals.LogRef) error {
	from, to := e.conv.Position(), ref.Upto
	if s, ok := e.snapshotFrom(); ok && s > from && s < to {
		to = s
	}
	page, err := r.query(ctx, ref, signals.LogRequest{From: from, To: to})
	if err != nil {
		return fmt.Errorf("read log of %s from %d: %w", ref.AgentID, from, err)
	}
	if page.Context != nil && from < page.Base { // a continued run: start from its seed
		e.conv, e.header, from = eventlog.RestoreConversation(*page.Context), nil, page.Base
	}
	if len(page.Events) == 0 && e.conv.Position() < to {
		return fmt.Errorf("log of %s ends at %d, before %d", ref.AgentID, page.Len, ref.Upto)
	}
	return e.apply(page.Events, from)
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
