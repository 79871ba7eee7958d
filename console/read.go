package console

import (
	"context"
	"errors"
	"fmt"
	"sync"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// snapshot is what a page knows of an agent when it is read.
type snapshot struct {
	ID     string
	Handle *agent.Handle
	Closed bool
	// Options are the agent's, from its latest run's input; nil when they
	// could not be read.
	Options *signals.AgentOptions
	Log     []eventlog.Envelope
	// FromHistory says the log was projected from history: the agent is
	// closed, or no worker answered the log query.
	FromHistory bool
	Status      *signals.StatusView
	StatusErr   error
	Progress    []agent.CallProgress
	// Ending is how and why a closed agent ended; nil while it is open or
	// when its history could not be read.
	Ending *projection.Ending
}

// read attaches to agent id and reads its options, log and status; the
// queries run at once, each bounded by QueryTimeout.
func (s *Server) read(ctx context.Context, id string) (*snapshot, error) {
	h, err := s.agents.Attach(ctx, id)
	closed := errors.Is(err, agent.ErrClosed)
	if err != nil && !closed {
		return nil, err
	}
	snap := &snapshot{ID: id, Handle: h, Closed: closed}
	var wg sync.WaitGroup
	var logErr error
	wg.Go(func() { snap.Options = s.options(ctx, id) })
	wg.Go(func() { snap.Log, snap.FromHistory, snap.Ending, logErr = s.readLog(ctx, h, closed) })
	if !closed {
		wg.Go(func() { snap.Progress = s.progress(ctx, h) })
		wg.Go(func() {
			qctx, cancel := context.WithTimeout(ctx, s.o.QueryTimeout)
			defer cancel()
			st, err := h.Status(qctx)
			if err != nil {
				snap.StatusErr = err
				return
			}
			snap.Status = &st
		})
	}
	wg.Wait()
	return snap, logErr
}

// progress reads what the agent's running tool calls last said of their
// progress, within QueryTimeout; none when it cannot be read: the panel
// shows it as a hint, and the status says what is wrong.
func (s *Server) progress(ctx context.Context, h *agent.Handle) []agent.CallProgress {
	qctx, cancel := context.WithTimeout(ctx, s.o.QueryTimeout)
	defer cancel()
	calls, err := h.Calls(qctx)
	if err != nil {
		return nil
	}
	return calls.Progress
}

// readLog reads the session log: by the log query while the agent runs,
// from history when it is closed or no worker answers in time; from
// history it also reads how the agent ended, if it did.
func (s *Server) readLog(ctx context.Context, h *agent.Handle, closed bool) ([]eventlog.Envelope, bool, *projection.Ending, error) {
	if !closed {
		qctx, cancel := context.WithTimeout(ctx, s.o.QueryTimeout)
		log, err := h.Log(qctx)
		cancel()
		if err == nil {
			return log, false, nil, nil
		}
		s.o.Logger.Info("Console reads the log from history", "agent_id", h.ID, "error", err)
	}
	runs, err := projection.FetchChain(ctx, s.o.Client, h.ID)
	if err != nil {
		return nil, true, nil, err
	}
	var ending *projection.Ending
	if e, ok := projection.EndingOf(runs[len(runs)-1]); ok {
		ending = &e
	}
	log, err := projection.Using(s.o.DataConverter).FromChain(runs...)
	if err != nil {
		return nil, true, ending, fmt.Errorf("read the log of %s from history: %w", h.ID, err)
	}
	return log, true, ending, nil
}

// options reads the agent's options from the input of its latest run (each
// run carries them); nil when that fails, e.g. for want of the codec keys.
func (s *Server) options(ctx context.Context, id string) *signals.AgentOptions {
	resp, err := s.o.Client.WorkflowService().GetWorkflowExecutionHistory(ctx, &workflowservice.GetWorkflowExecutionHistoryRequest{
		Namespace: s.o.Namespace, Execution: &commonpb.WorkflowExecution{WorkflowId: id}, MaximumPageSize: 1,
		HistoryEventFilterType: enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT,
	})
	if err != nil || len(resp.GetHistory().GetEvents()) == 0 {
		return nil
	}
	attrs := resp.GetHistory().GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
	var in signals.AgentInput
	if attrs == nil || s.o.DataConverter.FromPayloads(attrs.GetInput(), &in) != nil {
		return nil
	}
	return &in.Options
}

// prices are an agent's prices, zero when unknown.
func (snap *snapshot) prices() signals.Prices {
	if snap.Options == nil || snap.Options.Budget == nil {
		return signals.Prices{}
	}
	return snap.Options.Budget.Prices
}
