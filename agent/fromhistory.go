package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/api/serviceerror"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// status asks the latest run's status query, p as queryRun. A run that has
// closed is not asked first: its status query would answer from its last
// state, which says nothing of how it ended (a terminated agent would read
// running, in turn), so its close status wins (ended).
func (h *Handle) status(ctx context.Context, p patience) (signals.StatusView, error) {
	st, err := queryRun(ctx, h, "", signals.StatusQuery, struct{}{}, p, true)
	var closed *ClosedError
	if !errors.As(err, &closed) {
		return st, err
	}
	if st, err = query(ctx, h, signals.StatusQuery, struct{}{}); err != nil {
		if closed.disposed() { // no worker to answer: a disposed agent is idle and done
			return signals.StatusView{Status: eventlog.StatusIdle, Disposed: true}, nil
		}
		return signals.StatusView{}, closed
	}
	return ended(st, closed)
}

// ended is the last state of an agent that closed: a disposed one as it
// was, any other with nothing in flight and its *ClosedError.
func ended(st signals.StatusView, closed *ClosedError) (signals.StatusView, error) {
	if closed.disposed() && st.Disposed {
		return st, nil
	}
	st.Status, st.InTurn, st.Due = eventlog.StatusIdle, false, false
	st.Pending, st.Waits = nil, nil
	return st, closed
}

// attrStatus is the status the agent's search attributes hold (status and
// turn), read when no worker answers its status query, beside nw.
func (h *Handle) attrStatus(ctx context.Context, nw *NoWorkerError) (signals.StatusView, error) {
	desc, err := h.c.DescribeWorkflowExecution(ctx, h.ID, "")
	if err != nil {
		return signals.StatusView{}, nw
	}
	s := summary(desc.GetWorkflowExecutionInfo())
	from := *nw
	from.FromHistory = true
	return signals.StatusView{Status: eventlog.Status(s.Status), Turn: s.Turn, InTurn: s.Status == string(eventlog.StatusRunning)}, &from
}

// readLog reads the log from `from` on by the log query or, when no worker
// answers it, from the agent's history (historyLog).
func (h *Handle) readLog(ctx context.Context, from int64) ([]eventlog.Envelope, error) {
	log, err := h.logOf(ctx, "", from)
	var nw *NoWorkerError
	switch {
	case errors.As(err, &nw):
		read := *nw
		if log, err = h.historyLog(ctx, "", from, nw); err != nil {
			return nil, err
		}
		read.FromHistory = true
		return log, &read
	case taskFailing(err) && ctx.Err() == nil:
		if log, err = h.historyLog(ctx, "", from, &TaskFailingError{Agent: h.ID}); err != nil {
			return nil, err
		}
		return log, &TaskFailingError{Agent: h.ID, FromHistory: true}
	}
	return log, err
}

// taskFailing reports the server refusing a query because the run's
// workflow task is failing.
func taskFailing(err error) bool {
	var wnr *serviceerror.WorkflowNotReady
	return errors.As(err, &wnr) && strings.Contains(wnr.Message, "Workflow Task in failed state")
}

// historyLog projects the log from `from` on from the histories of the
// agent's chain of runs up to runID ("" = the latest; package projection):
// the log as far as the workflow tasks completed so far wrote it, a closed
// run's whole. A failure to read it wraps why, the reason it was read from
// history.
func (h *Handle) historyLog(ctx context.Context, runID string, from int64, why error) ([]eventlog.Envelope, error) {
	runs, err := projection.FetchChainTo(ctx, h.c, h.ID, runID)
	if err != nil {
		return nil, fmt.Errorf("%w; read its history: %w", why, err)
	}
	log, err := projection.Using(h.dc).FromChain(runs...)
	if err != nil {
		return nil, fmt.Errorf("%w; project its history: %w", why, err)
	}
	out := log[:0]
	for _, env := range log {
		if env.Seq >= from {
			out = append(out, env)
		}
	}
	return out, nil
}
