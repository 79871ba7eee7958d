package cli

import (
	"context"

	"github.com/tetherdev/tether/agent"
)

// streamUntilIdle prints the agent's tokens as they arrive until it is idle
// again, then the outcome of its last turn.
func streamUntilIdle(ctx context.Context, e env, h *agent.Handle) error {
	tctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range h.Tokens(tctx) {
			if err != nil {
				if tctx.Err() == nil { // not just the end of the wait
					e.printf("\n[live tokens unavailable: %v]\n", err)
				}
				return
			}
			printToken(e, ev)
		}
	}()
	st, err := h.WaitIdle(ctx)
	stop()
	<-done
	if err != nil {
		return err
	}
	e.printf("\n── %s after turn %d ──\n", st.Status, st.Turn)
	return nil
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
