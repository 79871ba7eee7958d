// Package transcript folds an agent's session log into what the console
// shows a person: blocks of turns (and the notes between them), each turn's
// steps with their user messages, assistant text, tool calls paired with
// their results, failed attempts and compaction summaries, usage and cost,
// and the latency of each model call.
//
// It is pure: it reads eventlog envelopes, performs no I/O and reads no
// clock, so it is table-tested without Temporal. The same fold renders a
// page and every live update after it, so a page and its updates always
// agree; a block's ID depends only on the log, never on when it was read.
//
// Model output is untrusted: Markdown renders it with raw HTML escaped and
// unsafe link schemes dropped, and nothing else here produces HTML.
package transcript
