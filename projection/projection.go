package projection

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// sources is what a history says, indexed for restoring stripped events.
type sources struct {
	dc       converter.DataConverter
	system   string
	messages map[eventlog.MessageID]string
	// signalled are the messages whose content came from a signal, with
	// the run (counted by readRun) that delivered it.
	signalled map[eventlog.MessageID]int
	// signalsFirst: this run's updates took the signals delivered before
	// them first (its run config says signals_first), so a signal's copy
	// that precedes an update of the same ID in history is the one taken.
	signalsFirst bool
	run          int
	scheduled    map[int64]string // scheduled event ID → activity ID
	results      map[string]json.RawMessage
	inputs       map[string]json.RawMessage
	local        map[string][]json.RawMessage // local tool results by call ID, oldest first
	journal      []eventlog.Envelope
	// For idle tails without a marker (idletail.go): the last workflow
	// task's start, the last model activity completed, the open task.
	taskAt    time.Time
	lastModel string
	task      task
	// For runs that write nothing for a plain idle tail (bare_tail): the
	// journals appended so far, the count right after each model
	// activity's input, the model call answered since the last task.
	bareTail   bool
	appends    int
	modelInput map[string]int
	bareModel  string
	// fork is the seed of a forked agent's first run: its log starts at
	// fork.State.Len (chainBase).
	fork *signals.Seed
}

// Projector rebuilds session logs from histories whose payloads its data
// converter decodes: the Temporal client's, when payloads are encrypted.
type Projector struct {
	dc converter.DataConverter
}

// Using returns a Projector that decodes payloads with dc (nil: the SDK's
// default data converter).
func Using(dc converter.DataConverter) Projector {
	if dc == nil {
		dc = converter.GetDefaultDataConverter()
	}
	return Projector{dc: dc}
}

// FromHistory is Using(nil).FromHistory: for histories of plain payloads.
func FromHistory(events []*historypb.HistoryEvent) ([]eventlog.Envelope, error) {
	return Using(nil).FromHistory(events)
}

// FromChain is Using(nil).FromChain: for histories of plain payloads.
func FromChain(runs ...[]*historypb.HistoryEvent) ([]eventlog.Envelope, error) {
	return Using(nil).FromChain(runs...)
}

// FromHistory returns the session log recorded in one run's history, in seq
// order. It fails when the journal has a gap or a reference cannot be
// resolved (the history is not a complete Tether log), or when a payload
// does not decode.
func (p Projector) FromHistory(events []*historypb.HistoryEvent) ([]eventlog.Envelope, error) {
	s := p.newSources()
	if err := s.readRun(events); err != nil {
		return nil, err
	}
	return s.restore()
}

func (p Projector) newSources() *sources {
	if p.dc == nil {
		p = Using(nil) // the zero Projector
	}
	return &sources{
		dc:        p.dc,
		messages:  map[eventlog.MessageID]string{},
		signalled: map[eventlog.MessageID]int{},
		results:   map[string]json.RawMessage{},
		inputs:    map[string]json.RawMessage{},
		local:     map[string][]json.RawMessage{},
	}
}

// readRun indexes one run's history. Scheduled event IDs are per run.
func (s *sources) readRun(events []*historypb.HistoryEvent) error {
	s.scheduled, s.task, s.lastModel = map[int64]string{}, task{}, ""
	s.modelInput, s.bareModel = map[string]int{}, ""
	s.run++
	s.signalsFirst, s.bareTail = false, false
	for _, ev := range events {
		err := s.track(ev)
		if err == nil {
			err = s.read(ev)
		}
		if err != nil {
			return fmt.Errorf("history event %d (%s): %w", ev.GetEventId(), ev.GetEventType(), err)
		}
	}
	return s.endTask()
}

func (s *sources) restore() ([]eventlog.Envelope, error) {
	log := dedupe(s.journal)
	for i := range log {
		if i > 0 && log[i].Seq != log[i-1].Seq+1 {
			return nil, fmt.Errorf("journal gap: seq %d follows %d", log[i].Seq, log[i-1].Seq)
		}
		env, err := s.resolve(log[i])
		if err != nil {
			return nil, err
		}
		log[i] = env
		s.inlined(env)
	}
	return log, nil
}

// inlined takes the content of a message the loop inserted with its
// content inline, not the payload's: what a child's report became when it
// carried no answer (a canceled or failed turn). The message's later
// events name it by ID, and mean what the inbox held.
func (s *sources) inlined(env eventlog.Envelope) {
	if env.Ref != "" || env.Type != eventlog.TypeInboxInserted {
		return
	}
	e, err := eventlog.Decode(env)
	if in, ok := e.(eventlog.InboxInserted); err == nil && ok && in.Content != "" {
		s.messages[in.MessageID] = in.Content
	}
}

// dedupe sorts by seq and keeps one of each: a run's tail is in both its
// Continue-As-New event and the next run's start input.
func dedupe(envs []eventlog.Envelope) []eventlog.Envelope {
	log := slices.Clone(envs)
	slices.SortStableFunc(log, func(a, b eventlog.Envelope) int { return int(a.Seq - b.Seq) })
	return slices.CompactFunc(log, func(a, b eventlog.Envelope) bool { return a.Seq == b.Seq })
}

// FromChain returns the session log of a chain of runs (Continue-As-New),
// given each run's history in order: the whole log from seq 0, gap-free;
// for a forked agent, from its session/forked event on (what precedes it
// is the source's, which the event names).
func (p Projector) FromChain(runs ...[]*historypb.HistoryEvent) ([]eventlog.Envelope, error) {
	s := p.newSources()
	for i, events := range runs {
		if err := s.readRun(events); err != nil {
			return nil, fmt.Errorf("run %d: %w", i, err)
		}
	}
	log, err := s.restore()
	if err != nil {
		return nil, err
	}
	base := s.chainBase()
	for i, env := range log {
		if env.Seq != base+int64(i) {
			return nil, fmt.Errorf("chain log has a gap: seq %d at position %d", env.Seq, i)
		}
	}
	return log, nil
}

func (s *sources) resolve(env eventlog.Envelope) (eventlog.Envelope, error) {
	if env.Ref == "" {
		return env, nil
	}
	kind, key, err := env.Ref.Split()
	if err != nil {
		return env, err
	}
	switch kind {
	case eventlog.RefMessage:
		content, ok := s.messages[eventlog.MessageID(key)]
		if !ok {
			return env, fmt.Errorf("seq %d: no message %s in history", env.Seq, key)
		}
		return eventlog.Restore(env, content, nil)
	case eventlog.RefActivity:
		res, ok := s.results[key]
		if !ok {
			return env, fmt.Errorf("seq %d: no result of activity %s in history", env.Seq, key)
		}
		return eventlog.Restore(env, "", res)
	case eventlog.RefInput:
		in, ok := s.inputs[key]
		if !ok {
			return env, fmt.Errorf("seq %d: no input of activity %s in history", env.Seq, key)
		}
		return eventlog.Restore(env, "", in)
	case eventlog.RefLocal:
		queue := s.local[key]
		if len(queue) == 0 {
			return env, fmt.Errorf("seq %d: no local activity result for call %s in history", env.Seq, key)
		}
		s.local[key] = queue[1:]
		return eventlog.Restore(env, "", queue[0])
	case eventlog.RefStart:
		return eventlog.Restore(env, s.system, nil)
	default:
		return env, fmt.Errorf("seq %d: unknown ref %s", env.Seq, env.Ref)
	}
}

// message indexes a delivered message; the first delivery of an ID wins, as
// it does in the workflow.
func (s *sources) message(m signals.Message) { s.take(m, false) }

// take indexes a message a signal or an accepted update delivered. The
// first delivery of an ID wins, with one exception: an update accepted in
// the run of a signal of the same ID that precedes it in history. The
// workflow took the update's copy (its validator refuses an ID already
// taken), so the signal had not been taken yet and was dropped: a signal
// waits in its channel until the run's main loop drains it, while an
// update's handler records its message at once. Runs whose config says
// signals_first have no exception: their update handlers take the signals
// delivered before them first, so history's order is the order taken.
func (s *sources) take(m signals.Message, byUpdate bool) {
	if m.ID == "" {
		return
	}
	if run, ok := s.signalled[m.ID]; ok && byUpdate && run == s.run && !s.signalsFirst {
		s.messages[m.ID] = m.Content
		delete(s.signalled, m.ID)
		return
	}
	if _, dup := s.messages[m.ID]; dup {
		return
	}
	s.messages[m.ID] = m.Content
	if !byUpdate {
		s.signalled[m.ID] = s.run
	}
}
