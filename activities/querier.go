package activities

import (
	"context"

	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/signals"
)

// WorkflowLog reads session logs with the log query on the agent workflow.
type WorkflowLog struct {
	Client client.Client
}

// QueryLog implements LogQuerier.
func (w WorkflowLog) QueryLog(ctx context.Context, agentID, runID string, req signals.LogRequest) (signals.LogPage, error) {
	v, err := w.Client.QueryWorkflow(ctx, agentID, runID, signals.LogQuery.Name, req)
	if err != nil {
		return signals.LogPage{}, err
	}
	var page signals.LogPage
	err = v.Get(&page)
	return page, err
}
