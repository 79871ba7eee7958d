// Package projection rebuilds an agent's session log from its Temporal
// history alone: the proof that history is the session log.
//
// Content-bearing events are not written to history twice. The loop writes a
// journal of every event in its history form (eventlog.Strip) into the next
// activity input, or into a side-effect marker when the agent goes idle, or
// into the workflow result; content stays where it first entered history:
// the start input, a signal or update payload, or an activity result. The
// projection collects the journal and restores each stripped event from the
// fact its Ref names.
//
// Payloads are decoded with the data converter of the client that wrote
// them (Using(dc)); the package-level functions assume plain payloads and
// fail on encrypted ones rather than guess.
//
// It performs no I/O beyond the optional Fetch helper and never decodes
// anything but Tether's own payloads.
package projection
