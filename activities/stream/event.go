package stream

import "github.com/tetherdev/tether/signals"

// The wire types are the contract's (signals); these names are the hub's.
type (
	// EventKind says what an Event carries.
	EventKind = signals.StreamEventKind
	// Event is what subscribers receive.
	Event = signals.StreamEvent
)

const (
	KindChunk = signals.StreamChunk
	KindDone  = signals.StreamDone
	KindError = signals.StreamError

	ErrorLagged    = signals.StreamLagged
	ErrorReplaced  = signals.StreamReplaced
	ErrorHubClosed = signals.StreamHubClosed
)
