package signals

import "errors"

// This file holds every error of the package: the sentinels callers match
// with errors.Is, grouped by what refuses them, and the rejection types
// that carry them across the update edge (an update validator rejects
// with an ApplicationError of that type; the client maps it back).

// Validation errors. Callers match with errors.Is.
var (
	ErrEmptyMessage    = errors.New("message content is empty")
	ErrMessageTooLarge = errors.New("message content is too large")
	ErrInvalidID       = errors.New("message id is invalid")
	ErrInvalidList     = errors.New("inbox list is invalid")
	ErrInvalidUTF8     = errors.New("message content is not valid UTF-8")
	ErrCauseTooLarge   = errors.New("cause is too large")
	ErrAlreadyIdle     = errors.New("agent is already idle")
	ErrDisposed        = errors.New("agent is disposed")
	ErrDuplicateID     = errors.New("message id was already accepted")
	// ErrReusedID refuses a message whose ID was accepted before with
	// other content: a resend of the same message is a duplicate
	// (ErrDuplicateID, already delivered), a different message under a
	// used ID is refused rather than dropped.
	ErrReusedID   = errors.New("message id was already used for different content")
	ErrContinuing = errors.New("agent is continuing as new; ask again")
	// ErrScheduleTooFar refuses a send scheduled beyond MaxScheduleAhead.
	ErrScheduleTooFar = errors.New("message is scheduled too far ahead")
	// ErrTooManyScheduled refuses a send while MaxScheduled messages wait.
	ErrTooManyScheduled = errors.New("too many scheduled messages")
	// ErrBusy refuses a message while the agent holds too much: its
	// pending messages or its run's history are over their byte budget
	// (MaxPendingBytes, MaxRunHistoryBytes). It passes as turns claim what
	// waits and the run continues as new: send again after BusyRetryAfter.
	ErrBusy = errors.New("agent is busy")
	// ErrRefused is a request the agent's state cannot take (its fold
	// refused the event); nothing was recorded.
	ErrRefused = errors.New("agent refused the request")
)

// Errors of the decision and spawn updates.
var (
	ErrNoSuchDecision = errors.New("no tool call waits for that decision")
	// ErrInvalidEdit refuses an approval's edited arguments: not a JSON
	// object, too large, on a call the policy lets no one edit, or refused
	// by the tool's schema. The call still waits.
	ErrInvalidEdit  = errors.New("edited arguments refused")
	ErrInvalidSpawn = errors.New("spawn is invalid")
)

// Errors of the rewind update. Nothing is recorded for either.
var (
	// ErrInvalidRewind refuses a rewind to a turn the agent never ended
	// (negative, or not ended yet), while a turn is open, or in a run
	// whose rules predate rewind.
	ErrInvalidRewind = errors.New("rewind refused")
	// ErrRewindLost refuses a rewind to a turn the agent can no longer
	// rebuild in place: its context was compacted or pruned since, it was
	// rewound past, or it is older than what the agent keeps. A fork at
	// that turn's end (read from history) still gets it back.
	ErrRewindLost = errors.New("turn can no longer be rewound to in place")
)

// ErrInvalidOptions marks agent options an agent cannot run with.
var ErrInvalidOptions = errors.New("agent options are invalid")

// ErrMalformedJournal is returned for a journal that does not decode.
var ErrMalformedJournal = errors.New("malformed journal")

// Stream errors, answered over HTTP as 404, 429 and 503.
var (
	// ErrNoStream: no stream with that key and token, or it finished too
	// long ago. An unknown key and a wrong token are the same error, so it
	// tells a guesser nothing about which streams exist.
	ErrNoStream = errors.New("no such stream")
	// ErrStreamBusy: the stream has as many subscribers as it allows. Only a
	// holder of the stream's token ever gets it.
	ErrStreamBusy = errors.New("too many subscribers to this stream")
	// ErrHubBusy: the worker's endpoint serves as many subscriptions as it
	// allows, or is shutting down. Try again later.
	ErrHubBusy = errors.New("stream hub busy")
)

// Rejection types: the ApplicationError types update validators reject
// with, so clients match on type, never on message text.
const (
	RejectInvalid   = "tether.InvalidMessage"
	RejectDuplicate = "tether.DuplicateMessage"
	RejectReused    = "tether.ReusedMessageID"
	RejectDisposed  = "tether.Disposed"
	RejectIdle      = "tether.AlreadyIdle"
	RejectContinue  = "tether.Continuing"
	RejectDecision  = "tether.NoSuchDecision"
	RejectEdit      = "tether.InvalidEdit"
	RejectScheduled = "tether.TooManyScheduled"
	RejectRewind    = "tether.InvalidRewind"
	RejectLost      = "tether.RewindLost"
	// RejectBusy is the one rejection worth retrying (see ErrBusy).
	RejectBusy = "tether.Busy"
)

var rejections = []struct {
	typ string
	err error
}{
	{RejectDuplicate, ErrDuplicateID},
	{RejectReused, ErrReusedID},
	{RejectDisposed, ErrDisposed},
	{RejectIdle, ErrAlreadyIdle},
	{RejectContinue, ErrContinuing},
	{RejectDecision, ErrNoSuchDecision},
	{RejectEdit, ErrInvalidEdit},
	{RejectScheduled, ErrTooManyScheduled},
	{RejectBusy, ErrBusy},
	{RejectRewind, ErrInvalidRewind},
	{RejectLost, ErrRewindLost},
}

// RejectionType is the rejection type for a validation error.
func RejectionType(err error) string {
	for _, r := range rejections {
		if errors.Is(err, r.err) {
			return r.typ
		}
	}
	return RejectInvalid
}

// RejectionError is the sentinel error of a rejection type, or nil for
// RejectInvalid and unknown types.
func RejectionError(typ string) error {
	for _, r := range rejections {
		if r.typ == typ {
			return r.err
		}
	}
	return nil
}
