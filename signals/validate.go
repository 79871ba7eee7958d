package signals

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/internal/text"
)

// Limits on accepted input. A message over MaxMessageBytes is rejected before
// it reaches history; Temporal's own payload limit is 2 MiB.
const (
	MaxMessageBytes = 256 << 10
	// MaxUpdateInputBytes bounds an update's input as a worker takes it:
	// every valid input is far smaller, and a larger one would make the
	// workflow's rejection, which repeats it, exceed Temporal's 2 MiB
	// payload limit.
	MaxUpdateInputBytes = 2<<20 - 64<<10
	MaxIDBytes          = 128
	MaxCauseBytes       = 1024
)

// Admission by bytes: a burst of valid messages must not take a run past
// Temporal's history limit (limit.historySize.error, 50 MB by default),
// where the server terminates it. An agent refuses a message with ErrBusy
// while what is pending would pass MaxPendingBytes, or while its run's
// history would pass MaxRunHistoryBytes (updates only: the server writes a
// signal before the workflow sees it). A run continues as new at its next
// boundary once Temporal suggests it (4 MiB of history by default).
const (
	MaxPendingBytes    = 1 << 20 // twice what a seed carries by default (loop.DefaultMaxSeedBytes)
	MaxRunHistoryBytes = 16 << 20
	// BusyRetryAfter is how long a refused sender should wait.
	BusyRetryAfter = time.Second
)

// Bounds of scheduled messages (Send.At): they wait in the agent's state,
// and a Continue-As-New seed carries them, so they are few and their
// content counts toward the seed's bound on pending messages.
const (
	MaxScheduleAhead = 366 * 24 * time.Hour
	MaxScheduled     = 64
)

// ValidateSchedule checks a send's time against now: zero or past means
// now; no further ahead than MaxScheduleAhead.
func ValidateSchedule(at, now time.Time) error {
	if !at.IsZero() && at.Sub(now) > MaxScheduleAhead {
		return fmt.Errorf("%w: %s is more than %s ahead", ErrScheduleTooFar, at.UTC().Format(time.RFC3339), MaxScheduleAhead)
	}
	return nil
}

// ValidateMessage checks a message before it is accepted.
func ValidateMessage(m Message) error {
	if err := ValidateID(m.ID); err != nil {
		return err
	}
	return ValidateContent(m.Content)
}

// ValidateContent checks a message's content: not blank, bounded, UTF-8.
func ValidateContent(content string) error {
	switch {
	case strings.TrimSpace(content) == "":
		return ErrEmptyMessage
	case len(content) > MaxMessageBytes:
		return fmt.Errorf("%w: %d bytes, limit %d", ErrMessageTooLarge, len(content), MaxMessageBytes)
	case !utf8.ValidString(content):
		return ErrInvalidUTF8
	}
	return nil
}

// ValidateSend checks a send.
func ValidateSend(s Send) error {
	if !s.List.Valid() {
		return fmt.Errorf("%w: %q", ErrInvalidList, s.List)
	}
	return ValidateMessage(s.Message)
}

// ValidateID checks a message ID: non-empty, bounded, printable ASCII without
// spaces (it is also used as an update ID and inside references), and not
// in the namespace of hook-made messages (MadePrefix).
func ValidateID(id eventlog.MessageID) error {
	if id == "" {
		// Said plainly: a raw signal without one is refused where no
		// sender sees it but in the worker's log.
		return fmt.Errorf("%w: empty (every message needs an ID: it is the message's dedupe key)", ErrInvalidID)
	}
	if len(id) > MaxIDBytes || IsMade(id) {
		return fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	for _, r := range string(id) {
		if r <= ' ' || r > '~' {
			return fmt.Errorf("%w: %q", ErrInvalidID, id)
		}
	}
	return nil
}

// BoundCause cuts a cause that arrived unvalidated (a raw signal) to
// MaxCauseBytes at a rune boundary, so it cannot grow what carries it.
func BoundCause(cause string) string {
	if len(cause) <= MaxCauseBytes {
		return cause
	}
	return text.Cut(cause, MaxCauseBytes-len("…")) + "…"
}

// ValidateCause bounds a cancel or dispose cause.
func ValidateCause(cause string) error {
	if len(cause) > MaxCauseBytes {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrCauseTooLarge, len(cause), MaxCauseBytes)
	}
	return nil
}
