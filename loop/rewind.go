package loop

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Rewinding in place, as RulesRewind take it:
//
//   - A rewind is a request, recorded as session/rewound, never a reset:
//     the turns rewound past stay in the log (and in projection, the
//     transcript, a fork's prefix) as they happened, and every fold of the
//     conversation (the loop's, the model activity's, projection's) reads
//     the event and keeps the first Keep messages. Usage is not refunded,
//     children already started go on as they are, scheduled and pending
//     messages stay, and turn numbers go on after the last one.
//   - The loop keeps where each turn ended (a TurnMark: the turn/end's
//     position and the conversation's message count then), and a seed
//     carries them, so a run can rewind to a turn an earlier run of its
//     chain held. A compaction or a pruning rewrites what came before it,
//     so the marks before one are dropped; so are those rewound past, and
//     all but the last MaxRewindTurns. A turn without a mark is refused
//     with signals.ErrRewindLost, naming a fork (read from history) as
//     what still gets it back.
//   - Only an idle agent rewinds: a running turn is refused, never canceled
//     for it (what runs may be what the caller does not know about yet);
//     cancel it first. A rewind to where the conversation already stands
//     records nothing.
//   - The system prompt is the present one (every step makes it); the
//     runtime context is recorded again at the next step when the one last
//     recorded came after the turn (SessionRewound.Forget).

// MaxRewindTurns bounds the turn ends a run keeps for rewinding (and a
// seed carries): about 25 bytes each.
const MaxRewindTurns = 1000

// Rewind brings an idle agent back to the end of turn ToTurn. Check it
// with CheckRewind first.
type Rewind struct {
	ToTurn int
	By     string
}

func (Rewind) isInput() {}

// freshMarks are a new agent's: it can go back to its start, turn 0.
func freshMarks() signals.RewindMarks {
	return signals.RewindMarks{Turns: []signals.TurnMark{{Turn: 0, At: -1, Keep: 0}}}
}

// restoredMarks are a restored run's: the seed's, or, from a seed that
// carries none (an older run's, a fork's first run), only the point the
// run starts at when it starts between turns.
func restoredMarks(seed signals.Seed) signals.RewindMarks {
	if seed.Rewind != nil {
		m := *seed.Rewind
		m.Turns = slices.Clone(m.Turns)
		return m
	}
	st := seed.State
	m := signals.RewindMarks{Floor: st.Turn, Lost: "it ended before this agent kept turn ends (in a run under older rules, or before its fork point)"}
	if st.InTurn {
		m.Floor++
		return m
	}
	m.Turns = []signals.TurnMark{{Turn: st.Turn, At: st.Len - 1, Keep: len(seed.Context.Messages)}}
	return m
}

// markTurns follows the turn marks through e, which record just applied.
func (l *Loop) markTurns(e eventlog.Event) {
	if l.cfg.Rules < RulesRewind {
		return
	}
	m := &l.marks
	switch e := e.(type) {
	case eventlog.TurnEnd:
		m.Turns = append(m.Turns, signals.TurnMark{Turn: e.Turn, At: l.state.Len - 1, Keep: l.msgs})
		if len(m.Turns) > MaxRewindTurns {
			m.Floor, m.Lost = m.Turns[1].Turn, fmt.Sprintf("only the last %d turn ends are kept", MaxRewindTurns)
			m.Turns = slices.Delete(m.Turns, 0, 1)
		}
	case eventlog.ContextCompacted, eventlog.ContextPruned:
		m.Turns, m.Floor = nil, l.state.Turn+1
		if l.state.InTurn {
			m.Floor = l.state.Turn
		}
		m.Lost = fmt.Sprintf("the context was %s after it, at position %d", map[bool]string{true: "compacted", false: "pruned"}[e.Type() == eventlog.TypeContextCompacted], l.state.Len-1)
	case eventlog.SessionRewound:
		m.Turns = slices.DeleteFunc(m.Turns, func(t signals.TurnMark) bool { return t.Turn > e.ToTurn })
	}
}

// CheckRewind validates a rewind before it is accepted and returns the
// turn end it goes back to. Nothing is recorded for a refused one.
func (l *Loop) CheckRewind(r signals.Rewind) (signals.TurnMark, error) {
	s := l.state
	switch {
	case l.cfg.Rules < RulesRewind:
		return signals.TurnMark{}, fmt.Errorf("%w: this run follows loop rules %d, which cannot rewind (rewind needs rules %d, from the agent's next run)",
			signals.ErrInvalidRewind, l.cfg.Rules, RulesRewind)
	case s.Disposing:
		return signals.TurnMark{}, signals.ErrDisposed
	case l.Continuing():
		return signals.TurnMark{}, signals.ErrContinuing
	case len(r.By) > signals.MaxNameBytes:
		return signals.TurnMark{}, fmt.Errorf("%w: by is over %d bytes", signals.ErrInvalidRewind, signals.MaxNameBytes)
	case r.ToTurn < 0:
		return signals.TurnMark{}, fmt.Errorf("%w: turn %d: turns count from 0, the agent's start", signals.ErrInvalidRewind, r.ToTurn)
	case r.ToTurn > s.Turn || r.ToTurn == s.Turn && s.InTurn:
		return signals.TurnMark{}, fmt.Errorf("%w: turn %d has not ended (the agent's last turn is %d)", signals.ErrInvalidRewind, r.ToTurn, s.Turn)
	case s.InTurn || l.phase != idle || s.Status != eventlog.StatusIdle:
		return signals.TurnMark{}, fmt.Errorf("%w: turn %d is running; a running turn is not rewound: wait for it to end, or cancel it, then rewind",
			signals.ErrInvalidRewind, s.Turn)
	}
	if i := slices.IndexFunc(l.marks.Turns, func(t signals.TurnMark) bool { return t.Turn == r.ToTurn }); i >= 0 {
		return l.marks.Turns[i], nil
	}
	why := "it was rewound past"
	if r.ToTurn < l.marks.Floor {
		why = l.marks.Lost
	}
	return signals.TurnMark{}, fmt.Errorf("%w: turn %d: %s; fork the agent at that turn's end instead (Handle.Fork, starter fork ID --at N, N the position of its turn/end), which reads it from history",
		signals.ErrRewindLost, r.ToTurn, why)
}

// rewind records session/rewound, unless the conversation already stands
// at the end of that turn, and makes it durable at once.
func (l *Loop) rewind(now time.Time, r Rewind) error {
	m, err := l.CheckRewind(signals.Rewind{ToTurn: r.ToTurn, By: r.By})
	if err != nil {
		return err
	}
	if last := l.marks.Turns[len(l.marks.Turns)-1]; last == m && l.msgs == m.Keep {
		return nil
	}
	conv, err := l.conversation()
	if err != nil {
		return err
	}
	e := eventlog.SessionRewound{ToTurn: m.Turn, At: m.At, Past: l.state.Turn, Keep: m.Keep, By: r.By,
		Forget: keptRuntimeContext(conv, m.Keep) != l.state.RuntimeContext}
	if err := l.admit(now, "", e); err != nil {
		return err
	}
	l.carry()
	return nil
}

// keptRuntimeContext is the last runtime context among the first keep
// messages of conv (after its system prompt), or "".
func keptRuntimeContext(conv *eventlog.Conversation, keep int) string {
	msgs := withoutSystem(conv.Messages())
	for i := min(keep, len(msgs)) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == eventlog.RoleUser && strings.HasPrefix(m.Content, eventlog.RuntimeContextPrefix) {
			return strings.TrimPrefix(m.Content, eventlog.RuntimeContextPrefix)
		}
	}
	return ""
}

// RewindMarks are the turn ends this run can rewind to.
func (l *Loop) RewindMarks() signals.RewindMarks {
	m := l.marks
	m.Turns = slices.Clone(m.Turns)
	return m
}
