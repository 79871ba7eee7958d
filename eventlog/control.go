package eventlog

// Selection is the model a step uses: provider, model and reasoning effort.
type Selection struct {
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Effort   string `json:"effort,omitempty"`
}

// ModelSelected records a model switch a client or hook asked for. It
// applies to every step proposed after it; a step already proposed keeps
// the selection it was given, so a switch never tears one request.
//
// Refused, when set, says why the switch was not made (a raw select-model
// signal naming a provider the worker does not offer): the event records
// the attempt and changes nothing. Resolved marks no one's switch but the
// worker's defaults made explicit: the provider and model the first call
// of an agent that named none ran on. Runs recorded before write neither.
type ModelSelected struct {
	Selection
	Refused  string `json:"refused,omitempty"`
	Resolved bool   `json:"resolved,omitempty"`
}

// TurnCanceling records that the open turn was asked to cancel, with the
// cause. The turn then ends canceled at its next boundary: in-flight calls
// are canceled and dangling tool calls get canceled results.
type TurnCanceling struct {
	Turn  int    `json:"turn"`
	Cause string `json:"cause"`
}

// AgentDisposing records that the agent was told to end. The open turn is
// canceled; once it closed, pending messages are discarded and the
// workflow completes (seed 003's dispose; the workflow's close is
// agent/disposed).
type AgentDisposing struct {
	Cause string `json:"cause"`
}

// MaintenanceQueued records a maintenance task waiting for a true idle
// phase (seed 003's runMaintenance).
type MaintenanceQueued struct {
	Task string `json:"task"`
}

// MaintenanceDone records the end of the oldest queued maintenance task,
// with the context size before and after (estimated tokens) and its error.
type MaintenanceDone struct {
	Task   string `json:"task"`
	Before int    `json:"before"`
	After  int    `json:"after"`
	Error  string `json:"error,omitempty"`
}

// RequestHeader records the frozen call configuration a model request is
// sent with, content-free; it is recorded when it differs from the last
// one recorded.
type RequestHeader struct {
	Provider  string   `json:"provider,omitempty"`
	Model     string   `json:"model,omitempty"`
	Effort    string   `json:"effort,omitempty"`
	MaxTokens int      `json:"max_tokens,omitempty"`
	Tools     []string `json:"tools,omitempty"`
}

// RequestContext records what a model request carries, content-free: the
// number of messages and the estimated tokens of the context.
type RequestContext struct {
	Messages int `json:"messages"`
	Tokens   int `json:"tokens"`
}
