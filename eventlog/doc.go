// Package eventlog is the agent's durable session log: the closed set of
// session events, their tagged envelope {seq, at, type, data} with a JSON
// codec locked by golden files, and the pure folds over a log (the loop
// State, the model-facing Conversation, ConsumedWork per MessageID).
//
// It uses the standard library only, performs no I/O, reads no clock and
// draws no randomness: times arrive inside events, stamped by the workflow.
// Folds are deterministic, so workflow code may use them.
//
// Invariants: seq is gap-free across an agent's whole chain of runs; an
// event that cannot follow the state it is applied to is ErrInvalidTransition
// (a corrupt log fails loudly); an unknown type is ErrUnknownType. A Ref on
// an envelope names the Temporal history fact that carries its content, so
// that content is written to history once (see Strip and Restore).
package eventlog
