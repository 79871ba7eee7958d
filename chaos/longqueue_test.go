package chaos

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// maxRecentIDs is the agent's dedupe window; a long queue sends more
// messages than that after the first.
const (
	maxRecentIDs = loop.MaxRecentIDs
	queueAfter   = maxRecentIDs + 100
	queueSenders = 8
)

type queueTally struct {
	after, updates, dupUpdates, signals int
}

// runLongQueue: a new agent is injected message X, then queueAfter other
// small messages (injects, as signals: they wake nothing, so X and all of
// them stay pending in one agent at the cost of a signal each), then X
// again, as a signal and as an acknowledged update. The update must be
// answered duplicate (X is pending, though more IDs than the window holds
// came after it); the signal is dropped, which checkMessages proves (X is
// in the log once). A followup then wakes the agent, whose turn claims
// the whole queue.
func runLongQueue(ctx context.Context, cf *clientFaults, n int) error {
	ctx, cancel := context.WithTimeout(ctx, faultDeadline)
	defer cancel()
	id := fmt.Sprintf("f%02d-queue", n)
	h, err := cf.create(ctx, id, signals.AgentOptions{Provider: scripted.Name, Tools: []string{"echo"}})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	x := eventlog.MessageID(id + "-x")
	xContent := "the first of a long queue"
	if err := cf.queueSend(ctx, h, x, xContent, true); err != nil {
		return fmt.Errorf("first message: %w", err)
	}
	var wg sync.WaitGroup
	for s := range queueSenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := s; i < queueAfter; i += queueSenders {
				mid := eventlog.MessageID(fmt.Sprintf("%s-q%04d", id, i))
				if err := cf.queueSend(ctx, h, mid, fmt.Sprintf("queued %d", i), i == queueAfter-1); err != nil {
					cf.fail("%s: message %s: %v", id, mid, err)
				}
			}
		}()
	}
	wg.Wait()
	cf.mu.Lock()
	cf.queues.after += queueAfter
	cf.mu.Unlock()
	if err := waitFor(ctx, "the queue pending", func(ctx context.Context) (bool, error) {
		st, err := h.Status(ctx)
		return err == nil && st.NextStepLen >= queueAfter+1, err
	}); err != nil {
		return err
	}
	if err := cf.resendQueued(ctx, h, x, xContent); err != nil {
		return err
	}
	wake := eventlog.MessageID(id + "-wake")
	if _, err := persist(ctx, func(ctx context.Context) error {
		_, err := h.Followup(ctx, "/say the queue drained", agent.WithMessageID(wake), agent.Acknowledged())
		return err
	}); err != nil {
		return fmt.Errorf("wake: %w", err)
	}
	cf.led.accepted(id, wake, sentMessage{op: opFollowup, content: "/say the queue drained"}, 1, false)
	return settle(ctx, h)
}

// queueSend injects one message (as an update when ack) until the server
// or the agent has it.
func (cf *clientFaults) queueSend(ctx context.Context, h *agent.Handle, id eventlog.MessageID, content string, ack bool) error {
	opts := []agent.SendOption{agent.WithMessageID(id)}
	if !ack {
		opts = append(opts, agent.Unacknowledged())
	}
	dup := false
	tries, err := persist(ctx, func(ctx context.Context) error {
		_, err := h.Inject(ctx, content, opts...)
		if errors.Is(err, signals.ErrDuplicateID) { // an earlier try delivered it
			dup = true
			return nil
		}
		return err
	})
	if err == nil {
		cf.led.accepted(h.ID, id, sentMessage{op: opInject, content: content, signal: !ack}, tries, dup)
	}
	return err
}

// resendQueued sends x again as a signal (dropped) and as an
// acknowledged update, which must be answered duplicate, or (after a try
// whose outcome was lost) succeed with an unknown position: never with a
// position of its own, which would be a second delivery.
func (cf *clientFaults) resendQueued(ctx context.Context, h *agent.Handle, x eventlog.MessageID, content string) error {
	if _, err := persist(ctx, func(ctx context.Context) error {
		_, err := h.Inject(ctx, content, agent.WithMessageID(x), agent.Unacknowledged())
		return err
	}); err != nil {
		return fmt.Errorf("resend %s as a signal: %w", x, err)
	}
	var ack signals.Ack
	dup := false
	_, err := persist(ctx, func(ctx context.Context) error {
		var err error
		ack, err = h.Inject(ctx, content, agent.WithMessageID(x), agent.Acknowledged())
		if errors.Is(err, signals.ErrDuplicateID) {
			dup, err = true, nil
		}
		return err
	})
	cf.mu.Lock()
	defer cf.mu.Unlock()
	cf.queues.signals++
	cf.queues.updates++
	switch {
	case dup:
		cf.queues.dupUpdates++
	case err != nil:
		return fmt.Errorf("resend %s as an update: %w, want %v", x, err, signals.ErrDuplicateID)
	case ack.Seq >= 0:
		return fmt.Errorf("resend %s as an update was accepted again at seq %d, %d messages after it: delivered twice",
			x, ack.Seq, queueAfter)
	default:
		cf.queues.dupUpdates++ // a lost try's duplicate, answered as success
	}
	return nil
}
