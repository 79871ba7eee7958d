package loop

import (
	"errors"
	"fmt"
	"strings"
)

// The loop's errors. A corrupt transition is eventlog.ErrInvalidTransition
// (phase.go names the phase and the trail); what a client sends is refused
// with signals' errors.

// ErrUnknownRules fails a run whose Config names rules this build does not
// follow: a run recorded before Baseline, or by a newer build.
var ErrUnknownRules = errors.New("unknown loop rules")

// ErrUnknownTask refuses a maintenance task the loop does not know.
var ErrUnknownTask = errors.New("unknown maintenance task")

// ErrNoUserMessage refuses a replacement for the last user message of a
// conversation that has none.
var ErrNoUserMessage = errors.New("the conversation has no user message to replace")

// ForkPositionError says a log position cannot be forked from, and the
// nearest positions that can (-1: none on that side).
type ForkPositionError struct {
	At, Before, After int64
	Why               string
}

func (e *ForkPositionError) Error() string {
	near := []string{}
	if e.Before >= 0 {
		near = append(near, fmt.Sprint(e.Before))
	}
	if e.After >= 0 {
		near = append(near, fmt.Sprint(e.After))
	}
	if len(near) == 0 {
		return fmt.Sprintf("cannot fork at %d: %s; no position of this log can be forked", e.At, e.Why)
	}
	return fmt.Sprintf("cannot fork at %d: %s; nearest positions that can: %s", e.At, e.Why, strings.Join(near, ", "))
}
