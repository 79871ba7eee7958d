package llm

// Chunk is one piece of a streaming model response. Chunks are transient:
// they are shown to live subscribers and never written to history; the
// settled assistant message is the durable fact.
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
