package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Log reads the whole session log, page by page, across the agent's chain
// of runs (Continue-As-New): sequence numbers continue from run to run.
// With no worker on the agent's task queue it reads the log from the
// agent's history instead and returns it beside a *NoWorkerError
// (FromHistory set).
func (h *Handle) Log(ctx context.Context) ([]eventlog.Envelope, error) {
	return h.readLog(ctx, 0)
}

// logOf reads run's log from `from` to its end; what precedes the run's base
// comes from the run it continued.
func (h *Handle) logOf(ctx context.Context, runID string, from int64) ([]eventlog.Envelope, error) {
	var out []eventlog.Envelope
	for {
		page, err := queryRun(ctx, h, runID, signals.LogQuery, signals.LogRequest{From: from}, notReadyOnly, false)
		if runID != "" && noPoller(err) {
			return h.closedRunLog(ctx, runID, from)
		}
		if err != nil {
			return nil, err
		}
		if from < page.Base && page.PrevRun != "" {
			prev, err := h.logOf(ctx, page.PrevRun, from)
			if err != nil {
				return nil, err
			}
			out = append(out, prev...)
		}
		out = append(out, page.Events...)
		if page.Next >= page.Len || len(page.Events) == 0 {
			return out, nil
		}
		from = page.Next
	}
}

// closedRunLog reads the log of runID, an earlier run of the chain (one
// that continued as new), from `from` to its end, from the histories of
// the chain up to it: a closed run's history holds its whole log. It
// serves a run whose query no worker can answer, and that none ever will:
// a run pinned to a worker deployment version whose workers have stopped
// after the agent moved on to a newer one.
func (h *Handle) closedRunLog(ctx context.Context, runID string, from int64) ([]eventlog.Envelope, error) {
	return h.historyLog(ctx, runID, from, fmt.Errorf("log of agent %s: no worker serves its run %s", h.ID, runID))
}

// noPoller reports the server refusing a query because no worker has
// polled the queue the run's tasks go to for a while (its
// matching.queryPollerUnavailableWindow, 20 s by default): under worker
// versioning, the queue of the version the run is pinned to.
func noPoller(err error) bool {
	var fp *serviceerror.FailedPrecondition
	return errors.As(err, &fp) && strings.Contains(fp.Message, "no poller seen")
}

func query[In, Out any](ctx context.Context, h *Handle, q signals.Query[In, Out], in In) (Out, error) {
	return queryRun(ctx, h, "", q, in, notReadyOnly, false)
}

// patience says which failed queries queryRun asks again, and for how long.
type patience int

const (
	// notReadyOnly asks again, for up to queryNotReadyWait, a run that
	// cannot answer yet (notReady).
	notReadyOnly patience = iota
	// untilDone asks again after any failure but a missing agent, until ctx
	// ends: a query fails for a while when no worker holds the agent.
	untilDone
)

// queryNotReadyWait bounds how long a query waits for a run to be able to
// answer.
const queryNotReadyWait = 15 * time.Second

// queryRun asks one run ("" = the latest), asking again with backoff while
// p says the run cannot answer yet. It is the client's one retry of a
// query. With openOnly, a run that has closed is not asked: the answer is
// its *ClosedError. A query waits for a worker no longer than needsWorker
// lets it: then it fails with a *NoWorkerError.
func queryRun[In, Out any](ctx context.Context, h *Handle, runID string, q signals.Query[In, Out], in In, p patience, openOnly bool) (Out, error) {
	wctx, stop := h.needsWorker(ctx)
	defer stop()
	out, err := queryServed(wctx, h, runID, q, in, p, openOnly)
	if nw := noWorker(wctx, err); nw != nil && ctx.Err() == nil {
		return out, nw
	}
	return out, err
}

func queryServed[In, Out any](ctx context.Context, h *Handle, runID string, q signals.Query[In, Out], in In, p patience, openOnly bool) (Out, error) {
	var out Out
	deadline := time.Now().Add(queryNotReadyWait)
	reject := enumspb.QUERY_REJECT_CONDITION_NONE
	if openOnly {
		reject = enumspb.QUERY_REJECT_CONDITION_NOT_OPEN
	}
	for pause := minPoll; ; pause = min(2*pause, maxPoll) {
		resp, err := h.c.QueryWorkflowWithOptions(ctx, &client.QueryWorkflowWithOptionsRequest{
			WorkflowID: h.ID, RunID: runID, QueryType: q.Name, Args: []any{in}, QueryRejectCondition: reject,
		})
		switch {
		case err == nil && resp.QueryRejected != nil && runID == "" &&
			resp.QueryRejected.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
			// The latest run closed to continue as new as it was asked:
			// the next run answers.
			if err := pauseFor(ctx, pause); err != nil {
				return out, fmt.Errorf("%s agent %s: %w", q.Name, h.ID, err)
			}
			continue
		case err == nil && resp.QueryRejected != nil:
			return out, h.closedErr(ctx, runID, resp.QueryRejected.GetStatus())
		case err == nil:
			err = resp.QueryResult.Get(&out)
		}
		if err == nil {
			return out, nil
		}
		again := notReady(ctx, err, q.Name) && time.Now().Add(pause).Before(deadline) ||
			p == untilDone && !isNotFound(err)
		if !again || ctx.Err() != nil {
			return out, h.mapErr(ctx, q.Name, err)
		}
		if closed := h.closedRun(ctx, runID, err); closed != nil {
			return out, closed // it will never register its handlers
		}
		select {
		case <-ctx.Done():
			return out, h.mapErr(ctx, q.Name, err)
		case <-time.After(pause):
		}
	}
}

// notReady reports an answer that says the run could not answer yet, so
// asking again shortly may succeed: the SDK's answer of a run that has not
// registered query name (its first workflow task has not completed: a busy
// or restarting worker), or the server giving up on a worker that did not
// take the query in time (its sticky schedule-to-start timeout; the server
// then sends the run's next tasks to any worker) while ctx has time left.
func notReady(ctx context.Context, err error, name string) bool {
	var qf *serviceerror.QueryFailed
	var wnr *serviceerror.WorkflowNotReady
	var de *serviceerror.DeadlineExceeded
	return errors.As(err, &wnr) || errors.As(err, &qf) && strings.Contains(qf.Message, "unknown queryType "+name+".") ||
		errors.As(err, &de) && ctx.Err() == nil
}

// closedRun reports a run that closed without answering queries (its
// workflow failed before registering them) as a *ClosedError; nil
// otherwise.
func (h *Handle) closedRun(ctx context.Context, runID string, err error) error {
	var qf *serviceerror.QueryFailed
	if !errors.As(err, &qf) {
		return nil
	}
	desc, derr := h.c.DescribeWorkflowExecution(ctx, h.ID, runID)
	if derr != nil {
		return nil
	}
	st := desc.GetWorkflowExecutionInfo().GetStatus()
	if st == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return nil
	}
	return h.closedErr(ctx, runID, st)
}
