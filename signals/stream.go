package signals

import (
	"fmt"
	"log/slog"
)

// The live token stream's wire contract: what a worker's stream endpoint
// sends (Server-Sent Events whose data is a StreamEvent) and the errors both
// ends name (ErrNoStream, ErrStreamBusy, ErrHubBusy: errors.go). Chunks are
// transient: they never enter history.

// Chunk is one piece of a streaming model response.
type Chunk struct {
	// Text is a delta of the assistant's text.
	Text string `json:"text,omitempty"`
	// Reasoning is a delta of the model's visible reasoning, if it has any.
	Reasoning string `json:"reasoning,omitempty"`
	// Tool call deltas: Index orders calls within the response; ID and Name
	// arrive with a call's first chunk, Arguments as JSON text deltas.
	ToolIndex int    `json:"tool_index,omitempty"`
	ToolID    string `json:"tool_id,omitempty"`
	ToolName  string `json:"tool_name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// StreamEventKind says what a StreamEvent carries.
type StreamEventKind string

const (
	// StreamChunk carries one chunk of the model's response.
	StreamChunk StreamEventKind = "chunk"
	// StreamDone ends a stream whose attempt succeeded.
	StreamDone StreamEventKind = "done"
	// StreamError ends a stream or a subscription; see StreamEvent.Error.
	StreamError StreamEventKind = "error"
	// StreamCall opens a model call in an agent's feed: the call's chunks
	// follow, then its done or error event, each naming the call.
	StreamCall StreamEventKind = "call"
)

// Error texts of the error events a stream endpoint makes itself. They end
// one subscription and are not part of the stream.
const (
	// StreamLagged: the subscriber fell behind the stream's window. Its Seq
	// is the oldest event still held: reconnecting from there resumes with
	// a gap.
	StreamLagged = "lagged"
	// StreamReplaced: the call's attempt was opened again; discard the
	// partial output. Its Seq is 0, where the new stream starts.
	StreamReplaced = "replaced"
	// StreamHubClosed: the worker is shutting down; discard the partial
	// output. Its Seq is the subscriber's position.
	StreamHubClosed = "hub closed"
)

// StreamEvent is what subscribers receive. Subscribers share Chunk with
// each other and must not modify it.
type StreamEvent struct {
	// Seq numbers the stream's events 0, 1, 2, ... For the endpoint's own
	// error events (lagged, replaced, hub closed) it says where a reader
	// could resume instead.
	Seq   int64           `json:"seq"`
	Kind  StreamEventKind `json:"kind"`
	Chunk *Chunk          `json:"chunk,omitempty"`
	// Error is set for StreamError. Unless it is StreamLagged, the
	// attempt's partial output must be discarded.
	Error string `json:"error,omitempty"`
	// Call names the model call an event of an agent's feed belongs to;
	// it is nil in a single call's stream and in the endpoint's own errors.
	Call *CallRef `json:"call,omitempty"`
}

// CallRef names one attempt of one model call in an agent's feed.
type CallRef struct {
	Activity string `json:"activity"` // a ModelActivityID
	Attempt  int32  `json:"attempt"`
}

// Terminal reports whether e is the last event of its subscription. A
// feed's per-call done and error events end their call, not the feed.
func (e StreamEvent) Terminal() bool {
	return (e.Kind == StreamDone || e.Kind == StreamError) && e.Call == nil
}

// LiveFeed answers FeedQuery: where the worker holding the agent serves the
// feed of the agent's model calls (every call it runs for the agent, one
// after another, chunk by chunk) and the feed's capability token, and the
// turn the next model call belongs to (the open turn, or the next one).
// Like StreamLocator it is never written to history, and its printed and
// logged forms leave the token out. URL is empty when the worker serves no
// live streams.
type LiveFeed struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	Turn  int    `json:"turn"`
}

// Format prints the feed without its token, whatever the verb.
func (f LiveFeed) Format(s fmt.State, _ rune) {
	fmt.Fprintf(s, "{URL:%s Token:%s Turn:%d}", f.URL, redacted(f.Token), f.Turn)
}

// LogValue logs the feed without its token, with any slog handler.
func (f LiveFeed) LogValue() slog.Value {
	return slog.GroupValue(slog.String("url", f.URL), slog.String("token", redacted(f.Token)), slog.Int("turn", f.Turn))
}
