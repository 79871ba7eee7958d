package llm

import "github.com/tetherdev/tether/signals"

// Chunk is one piece of a streaming model response (signals.Chunk). Chunks
// are transient: they are shown to live subscribers and never written to
// history; the settled assistant message is the durable fact.
type Chunk = signals.Chunk
