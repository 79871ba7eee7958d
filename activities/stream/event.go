package stream

import "github.com/tetherdev/tether/activities/llm"

// EventKind says what an Event carries.
type EventKind string

const (
	// KindChunk carries one chunk of the model's response.
	KindChunk EventKind = "chunk"
	// KindDone ends a stream whose attempt succeeded.
	KindDone EventKind = "done"
	// KindError ends a stream or a subscription; see Event.Error.
	KindError EventKind = "error"
)

// Error texts of the error events the hub makes itself. They end one
// subscription and are not part of the stream.
const (
	// ErrorLagged: the subscriber fell behind the stream's window. Its Seq is
	// the oldest event still held: reconnecting from there resumes with a gap.
	ErrorLagged = "lagged"
	// ErrorReplaced: the key was opened again; discard the partial output.
	// Its Seq is 0, where the new stream starts.
	ErrorReplaced = "replaced"
	// ErrorHubClosed: the worker is shutting down; discard the partial
	// output. Its Seq is the subscriber's position.
	ErrorHubClosed = "hub closed"
)

// Event is what subscribers receive. Subscribers share Chunk with each other
// and must not modify it.
type Event struct {
	// Seq numbers the stream's events 0, 1, 2, ... For the hub's own error
	// events (ErrorLagged, ErrorReplaced, ErrorHubClosed) it says where a
	// reader could resume instead.
	Seq   int64      `json:"seq"`
	Kind  EventKind  `json:"kind"`
	Chunk *llm.Chunk `json:"chunk,omitempty"`
	// Error is set for KindError. Unless it is ErrorLagged, the attempt's
	// partial output must be discarded.
	Error string `json:"error,omitempty"`
}

// Terminal reports whether e is the last event of its subscription.
func (e Event) Terminal() bool {
	return e.Kind == KindDone || e.Kind == KindError
}
