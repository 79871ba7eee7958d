// Package activities holds all of Tether's I/O: the model activity (one
// provider round trip per attempt) and the tool activity (one tool call).
//
// Neither activity receives the conversation in its input. The model
// activity gets a signals.LogRef (the log as of one position) and reads the
// conversation through a LogReader, which folds the session log and caches
// the fold per agent run, so history holds every message once and a model
// activity's input does not grow with the conversation. The tool activity
// gets its call's arguments inline when they are small (up to
// signals.MaxInlineArguments) or it runs as a local activity; otherwise it
// gets only the log position of the assistant message that asked for the
// call (ToolInput.AssistantSeq) and reads the arguments there through the
// same reader. Both inputs may also carry a journal (signals.Journal: the
// session events recorded since the workflow's previous command, in their
// content-free history form), there for history to hold: the activities
// never read it. The reader's events come from the snapshot the agent
// workflow publishes into it when the workflow runs in the same worker
// process (no round trip; see workflows.Snapshots), and from the
// workflow's log query otherwise. The reader's folds and snapshots share
// one byte budget.
//
// Failures cross the activity edge as temporal.ApplicationErrors whose Type is
// an eventlog.FailureKind (model) or signals.ToolFailure (tool) and whose
// retryable flag is honest. A fault is not a failure: Temporal retries the
// activities without an attempt limit, so an attempt lost with its worker
// simply runs again, and each activity decides about its own failures. An
// MCP server that exits or loses its connection mid-call is such a fault
// too (ErrMCPUnavailable), retried without counting, and so is a worker's
// tool that fails with tools.Unavailable (ErrToolUnavailable: a remote
// A2A agent that is down). A tool's checkpoint (tools.SaveCheckpoint: the
// ID of work it started elsewhere) rides on the call's heartbeat details
// beside the failure count and reaches the next attempt. A
// model call's failure is final (the workflow's retry hook owns retries); a
// tool's or a summary's own failures are counted in the heartbeat details,
// which survive to the next attempt, until the call's attempt budget is
// used. A tool call's heartbeats also carry its latest progress
// (tools.ReportProgress, an MCP server's notifications) with the attempt
// that reported it, as one line of at most MaxProgressMessage bytes, for
// the agent's status to show; the heartbeat loop records the latest
// details on every tick. Each enforces the call's own time limit itself, so running out of
// time is the call's failure too. A model reply is bounded (llm.Bound)
// before it leaves the activity, and so is every error text. Credentials
// live in provider adapters on the worker and never appear in an input, a
// result, an error or a log line. Provider SDK retries are off: Temporal and
// the workflow own retries.
package activities
