package chaos

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/agent"
)

// quiesce waits until every agent (the ids and the children they list) is
// idle and no log grew between two looks a few seconds apart.
func quiesce(ctx context.Context, c client.Client, ids []string) error {
	agents := agent.New(c, "")
	prev := int64(-1)
	for {
		total, busy := look(ctx, agents, ids)
		if len(busy) == 0 && total == prev {
			return nil
		}
		prev = total
		select {
		case <-ctx.Done():
			return fmt.Errorf("not quiescent: %v", busy)
		case <-time.After(3 * time.Second):
		}
	}
}

// look reads every agent's status: the total length of their logs, and
// which are not idle.
func look(ctx context.Context, agents *agent.Client, ids []string) (total int64, busy []string) {
	queue := slices.Clone(ids)
	seen := map[string]bool{}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		qctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		h, err := agents.Attach(qctx, id)
		if errors.Is(err, agent.ErrClosed) { // a child disposed once it answered
			cancel()
			continue
		}
		if err == nil {
			st, serr := h.Status(qctx)
			err = serr
			if err == nil && !st.Idle() {
				err = fmt.Errorf("turn %d step %d in turn %t due %t", st.Turn, st.Step, st.InTurn, st.Due)
			}
			total += st.LogLen
			for _, ch := range st.Children {
				queue = append(queue, ch.ID)
			}
		}
		cancel()
		if err != nil {
			busy = append(busy, id+": "+err.Error())
		}
	}
	return total, busy
}
