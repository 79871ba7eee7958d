package agent

import (
	"context"
	"strconv"

	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/signals"
)

// CallProgress is what a running tool call last said of its progress (an
// MCP server's progress notifications, a tool's tools.ReportProgress), as
// its attempt's heartbeat carried it to Temporal: at most a couple of
// seconds old. The worker sanitizes it: Message is one line of at most
// 160 bytes, and the numbers are finite.
type CallProgress struct {
	ID       string  `json:"id"`      // the activity ID (tool-<turn>-<step>-<index>)
	Tool     string  `json:"tool"`    // the name the model called (files__index)
	Attempt  int32   `json:"attempt"` // the attempt that reports it
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"` // zero: the tool does not know
	Message  string  `json:"message,omitempty"`
}

// Text is how far the call is, as status shows it: progress/total (the
// progress alone without a total) and the message, quoted, if any:
// `40/100 "indexing"`.
func (p CallProgress) Text() string {
	s := number(p.Progress)
	if p.Total != 0 {
		s += "/" + number(p.Total)
	}
	if p.Message != "" {
		s += " " + strconv.Quote(p.Message)
	}
	return s
}

func number(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Calls are the agent's calls in flight that status reports, read at once.
type Calls struct {
	// Retrying are the calls that failed and are being tried again.
	Retrying []Retrying
	// Progress are the tool calls running now that reported progress.
	Progress []CallProgress
}

// Calls reads the agent's calls being retried and those reporting progress
// from one DescribeWorkflowExecution of its latest run. A call's progress
// is shown only while the attempt that reported it runs: once it ends,
// finished or failed, nothing of it remains. A closed agent has none.
func (h *Handle) Calls(ctx context.Context) (Calls, error) {
	desc, err := h.c.DescribeWorkflowExecution(ctx, h.ID, "")
	if err != nil {
		return Calls{}, h.mapErr(ctx, "describe", err)
	}
	var out Calls
	for _, a := range desc.GetPendingActivities() {
		if a.GetAttempt() > 1 || a.GetLastFailure() != nil {
			out.Retrying = append(out.Retrying, retrying(a))
		}
		if p, ok := progressOf(h.dc, a); ok {
			out.Progress = append(out.Progress, p)
		}
	}
	return out, nil
}

// progressRecord is the part of the tool activity's heartbeat details
// that holds its progress (signals.ToolProgress).
type progressRecord struct {
	Progress *signals.ToolProgress `json:"progress"`
}

// progressOf is the progress of a running tool call's attempt, if its
// heartbeat carries some of this very attempt: an earlier attempt's
// details stay with the activity until the next attempt's first heartbeat.
func progressOf(dc converter.DataConverter, a *workflowpb.PendingActivityInfo) (CallProgress, bool) {
	if a.GetActivityType().GetName() != signals.ToolActivity || a.GetHeartbeatDetails() == nil ||
		a.GetState() != enumspb.PENDING_ACTIVITY_STATE_STARTED {
		return CallProgress{}, false
	}
	var r progressRecord
	if err := dc.FromPayloads(a.GetHeartbeatDetails(), &r); err != nil || r.Progress == nil || r.Progress.Attempt != a.GetAttempt() {
		return CallProgress{}, false
	}
	p := r.Progress
	return CallProgress{
		ID: a.GetActivityId(), Tool: p.Tool, Attempt: p.Attempt,
		Progress: p.Progress, Total: p.Total, Message: p.Message,
	}, true
}
