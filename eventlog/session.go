package eventlog

import "errors"

// TypeSessionStarted: the agent's session-start hooks ran (SessionStarted).
const TypeSessionStarted Type = "session/started"

// SessionStarted records that the agent's session-start hooks ran (seed
// 003's agent/session-start, rules 4): once per agent, when it was
// published, before its first turn, never again in a run that continued as
// new. Hooks names the hooks that ran, in chain order; Errors holds what
// each hook that failed or panicked said, naming it. A notification cannot
// veto: the agent goes on whatever Errors says. What the hooks injected
// is recorded before it as inbox/inserted events, like any inject.
//
// Only an agent that enabled a session-start hook records it; an agent
// started before rules 4, or with no such hook, never does.
type SessionStarted struct {
	Hooks  []string `json:"hooks"`
	Errors []string `json:"errors,omitempty"`
}

func (SessionStarted) Type() Type { return TypeSessionStarted }
func (SessionStarted) isEvent()   {}

// startSession folds SessionStarted: once per agent, before its first turn.
func (s *State) startSession() error {
	if s.SessionStarted {
		return errors.New("the session already started")
	}
	if s.Turn > 0 || s.InTurn {
		return errors.New("session start after the first turn")
	}
	s.SessionStarted = true
	return nil
}
