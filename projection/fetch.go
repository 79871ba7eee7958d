package projection

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
)

// Fetch reads the full history of one run ("" = the latest run).
func Fetch(ctx context.Context, c client.Client, workflowID, runID string) ([]*historypb.HistoryEvent, error) {
	it := c.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var out []*historypb.HistoryEvent
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("history of %s: %w", workflowID, err)
		}
		out = append(out, ev)
	}
	return out, nil
}

// FetchChain reads the histories of every run of an agent's chain, oldest
// first, by following each run's Continue-As-New link back from the latest.
func FetchChain(ctx context.Context, c client.Client, workflowID string) ([][]*historypb.HistoryEvent, error) {
	return FetchChainTo(ctx, c, workflowID, "")
}

// FetchChainTo reads the histories of the runs of an agent's chain up to
// and including runID ("" = the latest), oldest first.
func FetchChainTo(ctx context.Context, c client.Client, workflowID, runID string) ([][]*historypb.HistoryEvent, error) {
	var runs [][]*historypb.HistoryEvent
	for {
		events, err := Fetch(ctx, c, workflowID, runID)
		if err != nil {
			return nil, err
		}
		runs = append([][]*historypb.HistoryEvent{events}, runs...)
		if len(events) == 0 {
			return runs, nil
		}
		runID = events[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
		if runID == "" {
			return runs, nil
		}
	}
}
