package agent

import (
	"context"
	"errors"
	"iter"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Follow yields the agent's live notifications from log position from
// (0 = the beginning) as they happen: status changes, inbox insertions,
// claims and discards, settled turns and errors. It reads the durable log
// (the log query), so a follower that reconnects at a position misses
// nothing, and it writes nothing to history. Between reads it waits on the
// agent's history with a long poll (see WaitIdle), so it reads again as
// soon as a workflow task completes. It ends when ctx ends, when the agent
// is closed and read to its end, or at the first error.
func (h *Handle) Follow(ctx context.Context, from int64) iter.Seq2[Notification, error] {
	return func(yield func(Notification, error) bool) {
		w := h.watches.acquire(h.ID)
		defer w.release()
		var n notifier
		for {
			grew, _ := w.wait()
			page, err := query(ctx, h, signals.LogQuery, signals.LogRequest{From: from})
			if err == nil && from < page.Base && page.PrevRun != "" {
				// The agent continued as new: the rest of the range is in
				// the runs before.
				var prev []eventlog.Envelope
				prev, err = h.logOf(ctx, page.PrevRun, from)
				page.Events = append(prev, page.Events...)
			}
			if err != nil {
				yield(Notification{}, err)
				return
			}
			for _, env := range page.Events {
				e, err := eventlog.Decode(env)
				if err != nil {
					yield(Notification{}, err)
					return
				}
				for _, note := range n.apply(env, e) {
					if !yield(note, nil) {
						return
					}
				}
			}
			from = page.Next
			if len(page.Events) > 0 {
				continue
			}
			if closed, err := h.closed(ctx); err != nil || closed {
				if err != nil {
					yield(Notification{}, err)
				}
				return
			}
			if err := waitFor(ctx, grew, recheck); err != nil {
				yield(Notification{}, err)
				return
			}
		}
	}
}

// closed reports whether the agent's workflow has ended.
func (h *Handle) closed(ctx context.Context) (bool, error) {
	st, err := h.Status(ctx)
	if errors.Is(err, ErrClosed) {
		return true, nil
	}
	return st.Disposed && !st.InTurn, err
}
