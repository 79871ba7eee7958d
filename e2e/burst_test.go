package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"google.golang.org/protobuf/proto"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// Issue 19: 16 senders, each injecting 16 messages of 250 KiB through the
// Go client (each inside MaxMessageBytes), took an idle agent past
// Temporal's 50 MB history limit in 6 s, and the server terminated it. Now
// the agent admits by bytes: each send is delivered once or refused busy
// (after the client's own retries), and no run's history passes
// MaxRunHistoryBytes by more than what one workflow task's updates add.
func TestABurstOfLargeMessagesFromParallelSendersNeverClosesTheAgent(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, 3*time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "burst", First: "/say ready"})
	require.NoError(t, err)
	waitIdle(ctx, t, h)

	const senders, each = 16, 16
	body := strings.Repeat("x", 250<<10)
	var (
		mu        sync.Mutex
		delivered []eventlog.MessageID
		busy      int
	)
	sendCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range each {
				id := eventlog.MessageID(fmt.Sprintf("s%d-m%d", s, i))
				_, err := h.Inject(sendCtx, body, agent.WithMessageID(id), agent.Acknowledged())
				mu.Lock()
				switch {
				case err == nil, errors.Is(err, signals.ErrDuplicateID): // "already delivered"
					delivered = append(delivered, id)
				case errors.Is(err, signals.ErrBusy), errors.Is(err, agent.ErrDeliveryUnknown), errors.Is(err, context.DeadlineExceeded):
					busy++
				default:
					mu.Unlock()
					t.Errorf("send %s: %v", id, err)
					return
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Logf("%d delivered, %d refused busy or unfinished", len(delivered), busy)
	require.NotEmpty(t, delivered)

	desc, err := e.c.DescribeWorkflowExecution(ctx, h.ID, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.GetWorkflowExecutionInfo().GetStatus(), "the agent is not closed")
	_, err = h.Followup(ctx, "/say still here", agent.Acknowledged())
	require.NoError(t, err)
	waitIdle(ctx, t, h)

	log, err := h.Log(ctx)
	require.NoError(t, err)
	inserted := map[eventlog.MessageID]int{}
	for _, ev := range events(t, log) {
		if in, ok := ev.(eventlog.InboxInserted); ok {
			inserted[in.MessageID]++
		}
	}
	for _, id := range delivered {
		require.Equal(t, 1, inserted[id], "message %s is in the inbox once", id)
	}
	runs, err := projection.FetchChain(ctx, e.c, h.ID)
	require.NoError(t, err)
	for i, run := range runs {
		size := 0
		for _, ev := range run {
			size += proto.Size(ev)
		}
		t.Logf("run %d: %d events, %d bytes", i, len(run), size)
		require.Less(t, size, signals.MaxRunHistoryBytes+8<<20, "run %d stays far below Temporal's 50 MB", i)
	}
}
