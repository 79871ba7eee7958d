package agent

import (
	"context"
	"fmt"

	"github.com/tetherdev/tether/signals"
)

// RewindOption configures Rewind.
type RewindOption func(*signals.Rewind)

// RewoundBy names who asks for the rewind; the session/rewound event
// records it.
func RewoundBy(who string) RewindOption { return func(r *signals.Rewind) { r.By = who } }

// Rewind brings the idle agent back to the end of turn turn (0: before
// its first turn): from the next turn on, the model sees the conversation
// that turn ended with, and the turns after it stay in the session log,
// rewound past (session/rewound; the log is never rewritten). Spending is
// not refunded, children already started go on, pending and scheduled
// messages stay, and turn numbers go on after the last one.
//
// It is acknowledged (signals.RewindUpdate), and refused with nothing
// recorded: a turn that is negative or has not ended, an agent running a
// turn (it is never canceled for a rewind: cancel it first), or a run
// older than loop.RulesRewind, with an error matching
// signals.ErrInvalidRewind; a turn the agent can no longer rebuild in
// place (compacted or pruned since, rewound past, or before what its runs
// kept), matching signals.ErrRewindLost, whose text names Fork as what
// still gets it back. A rewind to where the agent
// already stands is accepted and records nothing (Seq -1). Transient
// server failures are retried under one request ID, as for an
// acknowledged message.
func (h *Handle) Rewind(ctx context.Context, turn int, opts ...RewindOption) (signals.Rewound, error) {
	in := signals.Rewind{ToTurn: turn}
	for _, o := range opts {
		o(&in)
	}
	if turn < 0 {
		return signals.Rewound{}, fmt.Errorf("rewind agent %s: %w: turn %d: turns count from 0, the agent's start", h.ID, signals.ErrInvalidRewind, turn)
	}
	out, err := deliver(ctx, h, request[signals.Rewind, signals.Rewound]{
		u: signals.RewindUpdate, id: "rewind-" + newID(), in: in,
	})
	if err != nil {
		return out, fmt.Errorf("rewind agent %s: %w", h.ID, err)
	}
	return out, nil
}
