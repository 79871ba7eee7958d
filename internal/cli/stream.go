package cli

import (
	"context"
	"sync"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
)

// streamUntilIdle prints the agent's tokens, from the first model call of
// from.turn on, as they arrive until it is idle again and every call it saw
// start has ended, and as many calls as the log says answered (a call's
// chunks may arrive just after the agent went idle, however quick it
// was), then the outcome of its last turn.
func streamUntilIdle(ctx context.Context, e env, h *agent.Handle, from streamStart) error {
	tctx, stop := context.WithCancel(ctx)
	defer stop()
	var calls openCalls
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range h.Tokens(tctx, agent.FromTurn(from.turn)) {
			if err != nil {
				if tctx.Err() == nil { // not just the end of the wait
					e.printf("\n[live tokens unavailable: %v]\n", err)
				}
				return
			}
			printToken(e, ev)
			if calls.track(ev) {
				return
			}
		}
	}()
	st, err := h.WaitIdle(ctx)
	if calls.idle(answered(ctx, h, from)) {
		stop()
	}
	select {
	case <-done:
	case <-time.After(tailGrace):
	}
	stop()
	<-done
	if err != nil {
		return err
	}
	e.printf("\n── %s after turn %d ──\n", st.Status, st.Turn)
	return nil
}

// tailGrace bounds the wait for the last chunks once the agent is idle.
const tailGrace = 2 * time.Second

// openCalls counts the model calls whose tokens started and did not end,
// and whether the agent went idle.
type openCalls struct {
	mu      sync.Mutex
	started map[[3]int]bool
	open    int
	settled bool
	// done counts the calls read to their end; want is how many the log
	// says the turns answered, known once the agent is idle.
	done, want int
}

// track counts ev and reports whether the stream is complete: the agent is
// idle and no call is open.
func (c *openCalls) track(ev agent.TokenEvent) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := [3]int{ev.Turn, ev.Step, int(ev.Attempt)}
	if c.started == nil {
		c.started = map[[3]int]bool{}
	}
	if !c.started[key] {
		c.started[key] = true
		c.open++
	}
	if ev.Kind != agent.TokenChunk { // done, or reset: a retry or a resumed feed opens it again
		c.open--
		c.started[key] = false
	}
	if ev.Kind == agent.TokenDone {
		c.done++
	}
	return c.complete()
}

func (c *openCalls) complete() bool { return c.settled && c.open == 0 && c.done >= c.want }

// idle records that the agent is idle with want calls answered since the
// turn streamed from, and reports whether the stream is complete: a quick
// call may end before its tokens are read.
func (c *openCalls) idle(want int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settled, c.want = true, want
	return c.complete()
}

// answered counts the model calls that answered in from.turn and after,
// from the session log read from from.pos on (not the whole log of an
// agent thousands of turns long); 0 when the log cannot be read (the
// stream then ends with the last open call).
func answered(ctx context.Context, h *agent.Handle, from streamStart) int {
	turn := from.turn
	log, err := h.LogFrom(ctx, from.pos)
	if err != nil {
		return 0
	}
	evs, err := eventlog.DecodeAll(log)
	if err != nil {
		return 0
	}
	n, in := 0, false
	for _, e := range evs {
		switch e := e.(type) {
		case eventlog.TurnStart:
			in = e.Turn >= turn
		case eventlog.AssistantMessage:
			if in {
				n++
			}
		}
	}
	return n
}

func printToken(e env, ev agent.TokenEvent) {
	switch ev.Kind {
	case agent.TokenChunk:
		if ev.Chunk.ToolName != "" {
			e.printf("\n[tool call %s]", ev.Chunk.ToolName)
		}
		e.printf("%s", ev.Chunk.Text)
	case agent.TokenReset:
		e.printf("\n[attempt failed: discarding its output]\n")
	case agent.TokenDone:
		e.printf("\n")
	}
}

// streamStart is where a stream starts: the turn whose model calls it
// prints, and a position of the log at or before that turn's start.
type streamStart struct {
	turn int
	pos  int64
}

// nextTurn is where a message sent now is streamed from: the open turn (a
// steer joins it, a followup queues behind it), whose start is somewhere
// in the log, or the next one, which starts after the log's present end.
func nextTurn(ctx context.Context, h *agent.Handle) (streamStart, error) {
	st, err := h.Status(ctx)
	if err != nil {
		return streamStart{}, err
	}
	if st.InTurn {
		return streamStart{turn: st.Turn}, nil
	}
	return streamStart{turn: st.Turn + 1, pos: st.LogLen}, nil
}
