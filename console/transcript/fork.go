package transcript

import (
	"fmt"

	"github.com/tetherdev/tether/eventlog"
)

// ForkNote is the line a fork's first event shows: where the fork came
// from and what it changed of what it began with.
func ForkNote(e eventlog.SessionForked) string {
	s := fmt.Sprintf("forked from %s at position %d", e.Source, e.At)
	if e.ReplacedLast != "" {
		s += "; the last user message replaced: " + Clip(e.ReplacedLast, 200)
	}
	if n := len(e.Dropped); n > 0 {
		s += fmt.Sprintf("; %d pending or scheduled message(s) left behind", n)
	}
	return s
}
