package projection

import (
	"fmt"

	historypb "go.temporal.io/api/history/v1"

	"github.com/tetherdev/tether/signals"
)

// Run is one run of an agent's chain as its history says: its run ID, the
// input it started with and the log position it began at (its seed's
// State.Len; 0 for an agent's first run, unless the agent was forked).
type Run struct {
	ID    string
	Input signals.AgentInput
	Base  int64
}

// Runs describes each run of a chain, given each run's history in order
// (FetchChain). A run's ID is what its start or its predecessor's
// Continue-As-New event names.
func (p Projector) Runs(runs ...[]*historypb.HistoryEvent) ([]Run, error) {
	s := p.newSources()
	out := make([]Run, 0, len(runs))
	for i, events := range runs {
		if len(events) == 0 {
			return nil, fmt.Errorf("run %d: empty history", i)
		}
		st := events[0].GetWorkflowExecutionStartedEventAttributes()
		if st == nil {
			return nil, fmt.Errorf("run %d: history does not begin with its start", i)
		}
		r := Run{ID: st.GetOriginalExecutionRunId()}
		if i > 0 {
			r.ID = nextRunID(runs[i-1])
		}
		if err := s.decode(st.GetInput(), &r.Input); err != nil {
			return nil, fmt.Errorf("run %d: start input: %w", i, err)
		}
		if r.Input.Seed != nil {
			r.Base = r.Input.Seed.State.Len
		}
		out = append(out, r)
	}
	return out, nil
}

// nextRunID is the run a run's Continue-As-New event started ("" if none).
func nextRunID(events []*historypb.HistoryEvent) string {
	for i := len(events) - 1; i >= 0; i-- {
		if a := events[i].GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
			return a.GetNewExecutionRunId()
		}
	}
	return ""
}

// chainBase is the position a chain's log starts at: its first run's
// fork seed's State.Len (session/forked's seq), or 0.
func (s *sources) chainBase() int64 {
	if s.fork != nil {
		return s.fork.State.Len
	}
	return 0
}
