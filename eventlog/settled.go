package eventlog

// Settlement is the outcome of the terminal turn of a retry chain (seed
// 000's agent/settled). It does not imply the agent is idle.
type Settlement struct {
	Turn    int       `json:"turn"`
	Reason  EndReason `json:"reason"`
	Error   string    `json:"error,omitempty"`
	Retries int       `json:"retries,omitempty"` // retry turns in the chain
}

// Settler folds a log incrementally into settlements: a turn settles when it
// ends, unless the next event opens a retry turn of it.
type Settler struct {
	open    *TurnEnd // a failed turn that a retry turn may still follow
	retries int
}

// Apply folds one event and returns the settlements it decides.
func (s *Settler) Apply(e Event) []Settlement {
	var out []Settlement
	if s.open != nil {
		if ts, ok := e.(TurnStart); ok && ts.RetryOf == s.open.Turn {
			s.open = nil
			s.retries++
			return nil
		}
		out = append(out, s.settle(*s.open))
		s.open = nil
	}
	if end, ok := e.(TurnEnd); ok {
		if end.Reason == EndFailed {
			s.open = &end // wait: a retry turn may follow at once
			return out
		}
		out = append(out, s.settle(end))
	}
	return out
}

func (s *Settler) settle(end TurnEnd) Settlement {
	st := Settlement{Turn: end.Turn, Reason: end.Reason, Error: end.Error, Retries: s.retries}
	s.retries = 0
	return st
}

// Settlements folds a whole log. A failed turn at the very end of the log is
// reported as settled: nothing followed it.
func Settlements(events []Event) []Settlement {
	var s Settler
	var out []Settlement
	for _, e := range events {
		out = append(out, s.Apply(e)...)
	}
	if s.open != nil {
		out = append(out, s.settle(*s.open))
	}
	return out
}
