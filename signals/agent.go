package signals

// AgentOptions configure one agent. They are part of the workflow input, so
// they never hold a secret: credentials live on the worker.
type AgentOptions struct {
	// Provider names a model provider registered on the worker ("scripted",
	// "openai"). Empty means the worker's default.
	Provider string `json:"provider,omitempty"`
	// Model is the provider's model name. Empty means the provider's default.
	Model        string `json:"model,omitempty"`
	SystemPrompt string `json:"system_prompt,omitempty"`
	// Tools names the worker's registered tools this agent may call.
	Tools     []string `json:"tools,omitempty"`
	MaxTokens int      `json:"max_tokens,omitempty"`
	// MaxSteps bounds the steps of one turn; a turn that reaches it fails
	// with a recorded reason. 0 means DefaultMaxSteps.
	MaxSteps int `json:"max_steps,omitempty"`
	// Parent is the ID of the agent that started this one, if any.
	Parent string `json:"parent,omitempty"`
}

// DefaultMaxSteps bounds a turn whose options say nothing.
const DefaultMaxSteps = 64

// AgentInput starts an agent workflow.
type AgentInput struct {
	Options AgentOptions `json:"options"`
	// First, when set, is accepted as a followup before anything else.
	First *Message `json:"first,omitempty"`
}

// AgentResult is what a disposed agent's workflow returns. Journal is the tail
// of the session log not yet recorded elsewhere in the run's history, so the
// log can be projected from history alone.
type AgentResult struct {
	LogLen  int64   `json:"log_len"`
	Journal Journal `json:"journal,omitzero"`
}

// JournalMarker is recorded (as a side-effect marker) when the agent goes
// idle, carrying the log tail that no activity input carried.
type JournalMarker struct {
	Journal Journal `json:"tether_journal"`
}
