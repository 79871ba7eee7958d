package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/signals"
)

// Snapshots receives each agent run's session log from the workflow, in the
// worker process that runs it, so the activities it schedules there read
// the log from memory instead of querying their own workflow. It is never
// written to history: history stays the session log, each message once.
//
// Publish gets pages of the log in order: a run instance's first page is
// its whole log from 0 (from Base with Context, for a continued run), each
// later page the events recorded since. Forget says the instance is gone
// from this process (evicted from the worker's cache, or its run ended); a
// later instance of the same run publishes from 0 again. Both are called
// on the workflow's goroutine, in workflow code: they must never block nor
// call back into the workflow, and they must not keep the page's slice
// (its envelopes may be kept, never changed).
type Snapshots interface {
	Publish(agentID, runID string, page signals.LogPage)
	Forget(agentID, runID string)
}

// snapshot is what a run instance has published so far.
type snapshot struct {
	to      Snapshots
	agentID string
	runID   string
	next    int64 // the seq of the next event to publish
	started bool
}

func newSnapshot(ctx workflow.Context, to Snapshots) *snapshot {
	info := workflow.GetInfo(ctx)
	return &snapshot{to: to, agentID: info.WorkflowExecution.ID, runID: info.WorkflowExecution.RunID}
}

// publish hands over the events recorded since the last publish. It is a
// side effect outside workflow state: it reads the loop and changes
// nothing a command or a replay depends on.
func (s *snapshot) publish(r *run) {
	if s.to == nil || s.started && s.next == r.loop.State().Len {
		return
	}
	for {
		page := r.loop.Page(signals.LogRequest{From: s.next})
		s.to.Publish(s.agentID, s.runID, page)
		s.started, s.next = true, page.Next
		if page.Next >= page.Len {
			return
		}
	}
}

// forget runs when the instance ends: its run completed or continued, or
// the worker evicted it (the SDK unwinds an evicted workflow's goroutines,
// running their deferred calls).
func (s *snapshot) forget() {
	if s.to != nil {
		s.to.Forget(s.agentID, s.runID)
	}
}
