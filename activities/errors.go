package activities

// The ApplicationError types the activities fail with besides the failure
// kinds (eventlog.FailureKind for the model, signals.ToolFailure for a
// tool's own failure); the workflow matches on them, never on the text.

// ErrLogUnavailable is the ApplicationError type of a failed log read, in
// the model and the tool activity. It is retryable and not counted against
// a call's attempts: the log query fails while the agent's workflow has no
// worker, which is a fault.
const ErrLogUnavailable = "tether.LogUnavailable"

// ErrMCPUnavailable is the ApplicationError type of a tool call whose MCP
// server could not answer it (its process exited, its connection broke):
// a fault, retried without counting against the call's attempts, like a
// worker that died. The model never sees it: after MaxMCPFaults faulted
// attempts of one call it reads an error result saying so instead.
const ErrMCPUnavailable = "tether.MCPUnavailable"

// ErrToolUnavailable is the ApplicationError type of a worker's tool call
// that failed for a fault of a service the tool depends on
// (tools.Unavailable: a remote A2A agent that is down or answers HTTP
// 5xx), retried without counting like ErrMCPUnavailable, and bounded the
// same way: after MaxMCPFaults faulted attempts the model reads an error
// result.
const ErrToolUnavailable = "tether.ToolUnavailable"
