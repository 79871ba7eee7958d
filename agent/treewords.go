package agent

import (
	"context"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// The words every view (starter ls, status and tree, the console's list,
// tree and agent page) uses for an open agent beside eventlog.Status's
// idle and running; a closed one reads how it ended (signals.Ended).
const (
	// StatusDisposing: Dispose was asked, and the workflow has not closed
	// yet.
	StatusDisposing = "disposing"
	// StatusStarting: open at turn 0 while no worker polls its task queue,
	// so none has run it; it runs once one does.
	StatusStarting = "starting"
)

// WorkerDefault is how views name the part of an agent's model that its
// options left to the worker, which TetherModel (and ModelLabel) read
// "default" until its first model call answers and records what the
// worker resolved.
const WorkerDefault = "worker default"

// OpenStatus is the word for an open agent whose status query answered
// st: idle, running, or disposing once Dispose was asked.
func OpenStatus(st signals.StatusView) string {
	if st.Disposed {
		return StatusDisposing
	}
	return string(st.Status)
}

// ModelShown is a provider/model label, as TetherModel holds it, as the
// views show it: "default/default" (the worker's defaults, not yet
// resolved) reads "worker default", a part left to the worker reads so
// ("openai/worker default"); a resolved label is unchanged.
func ModelShown(label string) string {
	p, m, ok := strings.Cut(label, "/")
	switch {
	case !ok:
		return label
	case p == "default" && m == "default":
		return WorkerDefault
	case p == "default":
		p = WorkerDefault
	case m == "default":
		m = WorkerDefault
	}
	return p + "/" + m
}

// endedWord is how an agent ended, as Temporal names a closed workflow's
// status (completed, timed_out, ...), in the views' words
// (signals.Ended: disposed, timed-out, ...); a word it does not know
// (continued_as_new) is kept.
func endedWord(how string) string {
	if w := signals.EndedFrom(how); w != "" {
		return string(w)
	}
	return how
}

// markStarting marks the open agents at turn 0 whose task queue no worker
// polls as starting: none has run them. Each queue is described once; one
// that cannot be described leaves its agents as visibility has them.
func (r *Client) markStarting(ctx context.Context, agents []Summary) {
	polled := map[string]bool{}
	h := r.handle("", "")
	for i, a := range agents {
		if a.Status != string(eventlog.StatusIdle) || a.Turn != 0 || !a.Closed.IsZero() || a.TaskQueue == "" {
			continue
		}
		p, ok := polled[a.TaskQueue]
		if !ok {
			yes, known := h.polled(ctx, a.TaskQueue)
			p = yes || !known
			polled[a.TaskQueue] = p
		}
		if !p {
			agents[i].Status = StatusStarting
		}
	}
}

// endedAs names a workflow status as ClosedError.How does: completed,
// terminated, timed_out, ...
func endedAs(st enumspb.WorkflowExecutionStatus) string {
	return lower(enumspb.WorkflowExecutionStatus_name[int32(st)], "WORKFLOW_EXECUTION_STATUS_")
}

// lower is an enum's proto name (its _name map's, WORKFLOW_EXECUTION_STATUS_TIMED_OUT;
// String() says TimedOut) without its prefix, in lower case: timed_out.
func lower(name, prefix string) string { return strings.ToLower(strings.TrimPrefix(name, prefix)) }
