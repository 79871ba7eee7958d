package stream

import "github.com/tetherdev/tether/signals"

// The wire types are the contract's (signals); these names are the hub's.
type (
	// EventKind says what an Event carries.
	EventKind = signals.StreamEventKind
	// Event is what subscribers receive.
	Event = signals.StreamEvent
	// CallRef names a call in an agent's feed.
	CallRef = signals.CallRef
)

const (
	KindChunk = signals.StreamChunk
	KindDone  = signals.StreamDone
	KindError = signals.StreamError
	KindCall  = signals.StreamCall

	ErrorLagged    = signals.StreamLagged
	ErrorReplaced  = signals.StreamReplaced
	ErrorHubClosed = signals.StreamHubClosed
)
