package agent

import (
	"context"
	"errors"

	"github.com/tetherdev/tether/signals"
)

// polledTokens is Tokens for a worker without the feed query: it finds
// each call in flight through its activity's heartbeat details
// (DescribeWorkflowExecution, polled with backoff) and reads that call's
// stream. A call over before the next poll is missed.
func (h *Handle) polledTokens(ctx context.Context, yield func(TokenEvent, error) bool) {
	read := map[signals.StreamLocator]bool{} // streams already followed to their end
	delay := minPoll
	for {
		loc, turn, step, err := h.liveStream(ctx)
		if err != nil {
			yield(TokenEvent{}, err)
			return
		}
		if loc != nil && !read[*loc] {
			read[*loc] = true
			base := TokenEvent{Turn: turn, Step: step, Attempt: loc.Attempt}
			if !h.follow(ctx, *loc, base, yield) {
				return
			}
			delay = minPoll
			continue
		}
		if !sleep(ctx, delay) {
			return
		}
		delay = min(2*delay, maxPoll)
	}
}

// follow reads one stream to its end; false stops the iteration.
func (h *Handle) follow(ctx context.Context, loc signals.StreamLocator, base TokenEvent, yield func(TokenEvent, error) bool) bool {
	for ev, err := range ReadStream(ctx, h.streamClient(), loc.URL, loc.Token, 0) {
		switch {
		case errors.Is(err, signals.ErrNoStream):
			return true // already over and gone: its message is in the log
		case err != nil && ctx.Err() != nil:
			return false
		case errors.Is(err, signals.ErrHubBusy), errors.Is(err, signals.ErrStreamBusy):
			yield(TokenEvent{}, err)
			return false
		case err != nil: // the worker went away mid-call: treat as a failed attempt
			base.Kind = TokenReset
			return yield(base, nil)
		}
		e := base
		switch ev.Kind {
		case signals.StreamChunk:
			e.Kind, e.Chunk = TokenChunk, *ev.Chunk
		case signals.StreamDone:
			e.Kind = TokenDone
		default:
			e.Kind = TokenReset
		}
		if !yield(e, nil) {
			return false
		}
	}
	return true
}

// liveStream finds the locator of the agent's model call in flight, if any.
func (h *Handle) liveStream(ctx context.Context) (*signals.StreamLocator, int, int, error) {
	desc, err := h.c.DescribeWorkflowExecution(ctx, h.ID, "")
	if err != nil {
		return nil, 0, 0, h.mapErr(ctx, "tokens", err)
	}
	for _, pa := range desc.GetPendingActivities() {
		if pa.GetActivityType().GetName() != signals.ModelActivity || pa.GetHeartbeatDetails() == nil {
			continue
		}
		var loc signals.StreamLocator
		if err := h.dc.FromPayloads(pa.GetHeartbeatDetails(), &loc); err != nil || loc.URL == "" {
			continue
		}
		turn, step, _ := signals.ParseModelActivityID(pa.GetActivityId())
		return &loc, turn, step, nil
	}
	return nil, 0, 0, nil
}
