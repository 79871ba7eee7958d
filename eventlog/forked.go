package eventlog

import "errors"

// TypeSessionForked: the agent was forked from another agent's log
// (SessionForked).
const TypeSessionForked Type = "session/forked"

// SessionForked is the first event of a forked agent's log: the agent
// began as a copy of Source's session log up to and including position
// At (read from Source's run Run, the run that recorded At), folded into
// the seed of its first run. Its log goes on at At+1, so positions up to
// At mean in the fork what they mean in the source; they are read from
// the source, which the fork leaves untouched.
//
// ReplacedLast, when set, is the text the fork gave the last user message
// of the folded conversation instead of the source's (Replaced says the
// text it had). Dropped lists the messages pending or scheduled in the
// source at At, which the fork does not receive. No call is open at At: a
// fork is taken only at a turn or step boundary, where every call the
// prefix made has its result, and the fork runs none of them again.
type SessionForked struct {
	Source       string      `json:"source"`
	Run          string      `json:"run,omitempty"`
	At           int64       `json:"at"`
	ReplacedLast string      `json:"replaced_last,omitempty"`
	Replaced     string      `json:"replaced,omitempty"`
	Dropped      []MessageID `json:"dropped,omitempty"`
}

func (SessionForked) Type() Type { return TypeSessionForked }
func (SessionForked) isEvent()   {}

// forked folds SessionForked: once, as the first event after the folded
// prefix, at a turn or step boundary (never inside a step).
func (s *State) forked(e SessionForked) error {
	switch {
	case e.Source == "":
		return errors.New("fork without a source")
	case e.At+1 != s.Len:
		return errors.New("fork event not right after its prefix")
	case s.InStep:
		return errors.New("fork inside a step")
	}
	return nil
}
