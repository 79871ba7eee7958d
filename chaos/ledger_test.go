package chaos

import (
	"fmt"
	"slices"
	"sync"

	"github.com/tetherdev/tether/eventlog"
)

// sentMessage is a message the fleet got accepted.
type sentMessage struct {
	op, content string
	signal      bool // sent as a signal (the server took it), not an update
	// mayCancel marks a message whose turn the harness ends early (it
	// disposes the agent mid-turn): its turn may end canceled.
	mayCancel bool
}

// decision is one the harness made on a call that waited for a person.
type decision struct {
	kind     eventlog.DecisionKind
	approved bool
	text     string
}

// ledger is what the fleet's clients know they did: the ground truth the
// logs are checked against. Safe for concurrent use.
type ledger struct {
	mu        sync.Mutex
	sent      map[string]map[eventlog.MessageID]sentMessage
	decisions map[string]map[string]decision
	// Counters for the report.
	rounds, resends, duplicates, maintenance, decisionResends int
	errs                                                      []string
}

func newLedger() *ledger {
	return &ledger{sent: map[string]map[eventlog.MessageID]sentMessage{}, decisions: map[string]map[string]decision{}}
}

// accepted records a message whose send succeeded after tries, dup when
// the agent answered that it had it already.
func (l *ledger) accepted(agentID string, id eventlog.MessageID, m sentMessage, tries int, dup bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sent[agentID] == nil {
		l.sent[agentID] = map[eventlog.MessageID]sentMessage{}
	}
	l.sent[agentID][id] = m
	l.resends += tries - 1
	if dup {
		l.duplicates++
	}
}

func (l *ledger) decided(agentID, callID string, d decision, tries int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.decisions[agentID] == nil {
		l.decisions[agentID] = map[string]decision{}
	}
	l.decisions[agentID][callID] = d
	l.decisionResends += tries - 1
}

func (l *ledger) count(n *int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	*n++
}

func (l *ledger) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, fmt.Sprintf(format, args...))
}

// acceptedIDs lists one agent's accepted messages.
func (l *ledger) acceptedIDs(agentID string) map[eventlog.MessageID]sentMessage {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[eventlog.MessageID]sentMessage{}
	for id, m := range l.sent[agentID] {
		out[id] = m
	}
	return out
}

// anyAccepted returns one message an agent accepted, for the flood to
// send again.
func (l *ledger) anyAccepted(agentID string, pick func(int) int) (eventlog.MessageID, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := make([]eventlog.MessageID, 0, len(l.sent[agentID]))
	for id := range l.sent[agentID] {
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return "", false
	}
	slices.Sort(ids)
	return ids[pick(len(ids))], true
}
