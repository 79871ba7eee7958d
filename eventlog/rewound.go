package eventlog

import "errors"

// TypeSessionRewound: the agent was brought back to the end of an earlier
// turn (SessionRewound).
const TypeSessionRewound Type = "session/rewound"

// SessionRewound brings an idle agent back to the end of turn ToTurn: from
// this event on, the conversation the model sees is the one that turn
// ended with, its first Keep messages (the system prompt is the present
// one, as every step makes it afresh). Turns ToTurn+1 to Past stay in the
// log as they were, rewound past: the log is never rewritten, and what
// they spent stays spent. At is the position of turn ToTurn's turn/end
// (-1 for turn 0, the start of the agent). Turn numbers go on after Past,
// so every turn keeps its own number. Forget says the runtime context
// last recorded was recorded after turn ToTurn: the next step records the
// present one again. By names who asked, when the client said.
type SessionRewound struct {
	ToTurn int    `json:"to_turn"`
	At     int64  `json:"at"`
	Past   int    `json:"past"`
	Keep   int    `json:"keep"`
	Forget bool   `json:"forget,omitempty"`
	By     string `json:"by,omitempty"`
}

func (SessionRewound) Type() Type { return TypeSessionRewound }
func (SessionRewound) isEvent()   {}

// rewound folds SessionRewound: only while the agent is idle, between
// turns, to a turn that ended before it.
func (s *State) rewound(e SessionRewound) error {
	switch {
	case s.InTurn || s.InStep || s.Status != StatusIdle:
		return errors.New("rewind while a turn is open")
	case s.Disposing:
		return errors.New("rewind of a disposing agent")
	case e.ToTurn < 0 || e.ToTurn > s.Turn || e.Past != s.Turn:
		return errors.New("rewind to a turn this log does not hold")
	case e.Keep < 0 || e.At >= s.Len:
		return errors.New("rewind past the log's end")
	}
	if e.Forget {
		s.RuntimeContext = ""
	}
	return nil
}
