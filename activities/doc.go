// Package activities holds all of Tether's I/O: the model activity (one
// provider round trip per attempt) and the tool activity (one tool call).
//
// Neither activity receives the conversation in its input. Each gets a
// signals.LogRef and reads what it needs through a LogReader, which folds the
// session log it obtains with the agent workflow's log query and caches the
// fold per agent run, so history holds every message once and a model
// activity's input does not grow with the conversation.
//
// Failures cross the activity edge as temporal.ApplicationErrors whose Type is
// an eventlog.FailureKind and whose retryable flag is honest. Credentials
// live in provider adapters on the worker and never appear in an input, a
// result, an error or a log line. Provider SDK retries are off: Temporal and
// the workflow own retries.
package activities
