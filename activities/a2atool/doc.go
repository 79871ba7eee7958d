// Package a2atool gives a worker's agents remote agents as tools, over the
// Agent2Agent protocol (A2A, JSON-RPC, with the a2a-go SDK's client): each
// agent a config file (--a2a-config) names is the worker's tool
// "a2a__<name>", which an agent enables with "a2a:<name>" among its tools.
//
// The tool's description is made from the remote's agent card (its
// description and skills), fetched when the worker starts. A card that
// cannot be fetched then fails nothing: the worker starts and logs why,
// the tool says so in its description, and each call fetches the card
// again, a fault while it cannot. A bad config file stops the worker.
//
// A call is a regular activity (never local) that heartbeats. Its message
// ID, and the context ID of a new conversation, are derived from the
// call's idempotency key, the same on every attempt, so a resend is the
// same message, which a server that honours message IDs (Tether's
// a2aserver does) delivers once. Once the remote took the message, the
// call records the remote task's ID as its checkpoint
// (tools.SaveCheckpoint, in the heartbeat details), so an attempt after a
// worker crash follows that task (tasks/resubscribe, tasks/get) instead
// of sending again. The call waits for the task to settle, up to the
// agent's timeout within the call's own time limit:
//   - completed: the model reads the answer (the artifacts' text), with
//     the context_id that continues the conversation;
//   - input-required: the model reads what the remote asks, and answers
//     by calling the tool again with task_id and the answer as message,
//     which continues the same remote task (a person answers only if the
//     calling agent's model asks one, with ask_human);
//   - failed, canceled, rejected, auth-required: an error result;
//   - still working when the wait is up: a result that says so, with the
//     task_id to wait on (a call with task_id and no message sends
//     nothing).
//
// A remote that cannot be reached, answers HTTP 5xx or 429, or fails on
// its side (a JSON-RPC internal error) is a fault (tools.Unavailable):
// the attempt fails and is retried without counting against the call's
// attempts, like an MCP server's, and after activities.MaxMCPFaults
// faulted attempts in a row the model reads an error result. HTTP 401 or
// 403 and a request the remote finds invalid are error results at once.
// A call canceled with its turn cancels its remote task (tasks/cancel); a
// worker that stops leaves it running for the next attempt.
//
// The package never logs a token, and sends one only to the JSON-RPC
// endpoint, never with the card's fetch.
package a2atool
