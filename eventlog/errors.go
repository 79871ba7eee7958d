package eventlog

import "errors"

// The package's errors; callers match them with errors.Is.

// ErrUnknownType is returned for an envelope whose type this build does not know.
var ErrUnknownType = errors.New("eventlog: unknown event type")

// ErrNoData is returned when decoding an envelope whose data was stripped.
var ErrNoData = errors.New("eventlog: envelope has no data")

// ErrMalformed is returned for an envelope whose data does not decode as
// its type's event; the JSON error is wrapped too.
var ErrMalformed = errors.New("eventlog: malformed event data")

// ErrInvalidTransition is returned when an event cannot follow the state it is
// applied to: the log is corrupt or the loop has a bug. Replay fails loudly.
var ErrInvalidTransition = errors.New("eventlog: invalid transition")
