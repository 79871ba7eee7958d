// Package signals is Tether's public wire contract: the durable names of the
// workflow, activities, task queue and search attributes; the names and
// payloads of every signal, update and query as typed descriptors; the
// activity inputs and outputs; and the validation every message passes
// before it is accepted.
//
// It uses the standard library (and eventlog) only and holds no behaviour
// beyond validation and the bounded views a reader gets of an agent's
// state (Preview, StatusOf). Names are durable: a value is never renamed. Payloads
// never carry credentials.
package signals
