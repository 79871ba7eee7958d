package agent

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"time"

	"github.com/tetherdev/tether/signals"
)

// TokenKind says what a TokenEvent carries.
type TokenKind string

const (
	// TokenChunk is a live delta of the model call in flight.
	TokenChunk TokenKind = "chunk"
	// TokenReset says the attempt failed: discard its partial output. A
	// retry, if any, streams from scratch.
	TokenReset TokenKind = "reset"
	// TokenDone ends one model call's stream; its settled message is in the
	// session log.
	TokenDone TokenKind = "done"
)

// TokenEvent is one live event of an agent's model calls. Token events are
// transient: the durable fact is the assistant message in the log.
type TokenEvent struct {
	Kind    TokenKind     `json:"kind"`
	Turn    int           `json:"turn"`
	Step    int           `json:"step"`
	Attempt int32         `json:"attempt"`
	Chunk   signals.Chunk `json:"chunk,omitempty"`
}

// Tokens yields the live chunks of the agent's model calls as they stream,
// call after call, until ctx ends. It finds each call's stream and token
// through its activity's heartbeat details (DescribeWorkflowExecution, so
// it needs the right to read the workflow) and reads it from the worker
// that runs the call, so it needs no broker and writes nothing to history.
// Providers that do not stream yield nothing. A worker refusing for load
// ends the iteration with signals.ErrHubBusy or signals.ErrStreamBusy.
func (h *Handle) Tokens(ctx context.Context) iter.Seq2[TokenEvent, error] {
	return func(yield func(TokenEvent, error) bool) {
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
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
			delay = min(2*delay, maxPoll)
		}
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

// defaultStreamClient reads streams for a Client without WithStreamClient:
// no overall timeout, or it would cut them off; TLS trusts the system.
var defaultStreamClient = &http.Client{}

func (h *Handle) streamClient() *http.Client {
	if h.streams != nil {
		return h.streams
	}
	return defaultStreamClient
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
