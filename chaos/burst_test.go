package chaos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// A burst: burstSenders clients at once, each sending burstEach
// acknowledged messages of burstBytes to one agent. Together they are
// several times signals.MaxPendingBytes, so the agent refuses some busy.
const (
	burstSenders = 8
	burstEach    = 3
	burstBytes   = 200 << 10
	// burstTry bounds one acknowledged send, so a busy agent's refusal
	// comes back to the sender (agent.Acknowledged retries it until
	// then) rather than being waited out.
	burstTry = 8 * time.Second
	// faultDeadline bounds a whole fault: its sends and its waits.
	faultDeadline = 6 * time.Minute
)

type burstTally struct {
	messages, delivered, busy, unknown, dups int
	// peak is the most messages the agent held waiting at one look:
	// signals.MaxPendingBytes/burstBytes means it was refusing more.
	peak int
}

// runBurst sends a burst to a new agent and waits for it to answer every
// message. Each send ends delivered, or refused busy or with its outcome
// unknown and then sent again under its ID until delivered; any other
// end (the agent closed, say) is a violation. checkMessages proves each
// was delivered once and answered.
func runBurst(ctx context.Context, cf *clientFaults, n int) error {
	ctx, cancel := context.WithTimeout(ctx, faultDeadline)
	defer cancel()
	id := fmt.Sprintf("f%02d-burst", n)
	h, err := cf.create(ctx, id, signals.AgentOptions{Provider: scripted.Name, Tools: []string{"echo"}})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	var wg sync.WaitGroup
	for s := range burstSenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range burstEach {
				mid := eventlog.MessageID(fmt.Sprintf("%s-s%d-m%d", id, s, m))
				content := fmt.Sprintf("/say burst message %s\n", mid) + filler(burstBytes)
				if err := cf.burstSend(ctx, h, mid, content); err != nil {
					cf.fail("%s: message %s: %v", id, mid, err)
				}
			}
		}()
	}
	done := make(chan struct{})
	go cf.watchPending(ctx, h, done)
	wg.Wait()
	close(done)
	return settle(ctx, h)
}

// watchPending notes the most messages h holds waiting, until done.
func (cf *clientFaults) watchPending(ctx context.Context, h *agent.Handle, done <-chan struct{}) {
	for {
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		st, err := h.Status(qctx)
		cancel()
		if err == nil {
			cf.mu.Lock()
			cf.bursts.peak = max(cf.bursts.peak, st.NextTurnLen)
			cf.mu.Unlock()
		}
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// burstSend sends one message of a burst until it is known delivered.
func (cf *clientFaults) burstSend(ctx context.Context, h *agent.Handle, id eventlog.MessageID, content string) error {
	tally := func(f func(b *burstTally)) { cf.mu.Lock(); f(&cf.bursts); cf.mu.Unlock() }
	tally(func(b *burstTally) { b.messages++ })
	sent := false // an earlier try may have delivered it
	for tries := 1; ; tries++ {
		tctx, cancel := context.WithTimeout(ctx, burstTry)
		_, err := h.Followup(tctx, content, agent.WithMessageID(id), agent.Acknowledged())
		cancel()
		switch {
		case err == nil:
		case errors.Is(err, signals.ErrDuplicateID) && sent: // an unknown try delivered it
			tally(func(b *burstTally) { b.dups++ })
		case errors.Is(err, signals.ErrDuplicateID):
			return fmt.Errorf("a duplicate of a message no try could have delivered: %w", err)
		case errors.Is(err, agent.ErrDeliveryUnknown):
			tally(func(b *burstTally) { b.unknown++ })
			sent = true
			continue
		case errors.Is(err, signals.ErrBusy):
			tally(func(b *burstTally) { b.busy++ })
			if perr := pauseOrEnd(ctx, signals.BusyRetryAfter); perr != nil {
				return fmt.Errorf("still busy after %d tries: %w", tries, perr)
			}
			continue
		default: // closed, refused otherwise, or the deadline passed
			return fmt.Errorf("try %d: %w", tries, err)
		}
		tally(func(b *burstTally) { b.delivered++ })
		cf.led.accepted(h.ID, id, sentMessage{op: opFollowup, content: content}, tries, sent && err != nil)
		return nil
	}
}

func pauseOrEnd(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// filler is n bytes of lines that hold no directive for the scripted model.
func filler(n int) string {
	line := lorem(15) + "\n"
	s := strings.Repeat(line, n/len(line)+1)
	return s[:n]
}

// checkRunning: an agent the client never disposed is running: never
// terminated (by the server, over its history limit, say) nor failed.
func checkRunning(ctx context.Context, c client.Client, id string, v *violations) {
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		v.add("%s: describe: %v", id, err)
		return
	}
	if st := desc.GetWorkflowExecutionInfo().GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		v.add("%s: the agent is %s, though no client disposed it", id, st)
	}
}
