// Package signals is Tether's public wire contract: the durable names of the
// workflow, activities, task queue and search attributes; the names and
// payloads of every signal, update and query as typed descriptors; the
// activity inputs and outputs; the live token stream's events, which a
// worker serves over HTTP (StreamEvent); the word every view uses for how
// an agent ended (Ended); the validation every message passes before it is
// accepted; and every error of the package with the rejection types that
// carry them across the update edge (errors.go).
//
// Beside the contract it holds what the workflow, the activities,
// projection and the client must compute alike, so no two of them can
// disagree: each message operation's route (MessageOp: Followup, Steer,
// Inject, with the inbox list and whether it wakes the agent), which the
// client sends by and the workflow registers its handlers from; the
// durable ID formats and their parsers (activity, timer,
// child-agent, report and message IDs, MCP grants); the journal codec, the
// compact form in which session events travel in history (Journal,
// NewJournal, Envelopes; the events every turn records as arrays of
// values); the idle-tail builder (IdleTail), the journal of a turn that
// ends the plainest way, which the workflow compares against and
// projection derives from history; and the bounded views a reader gets of
// an agent's state (Preview, StatusOf).
//
// It uses the standard library, eventlog and internal/text (the
// rune-boundary cut) only, and does no I/O. Names and ID formats are
// durable: a value is never renamed and a format never changes. Payloads
// never carry credentials.
package signals
