// Package projection rebuilds an agent's session log from its Temporal
// history alone: the proof that history is the session log.
//
// Content-bearing events are not written to history twice. The loop writes a
// journal of every event in its history form (eventlog.Strip) into the next
// activity input, or into a side-effect marker when the agent goes idle, or
// into the workflow result; content stays where it first entered history:
// the start input, a signal or update payload, or an activity result. The
// projection collects the journal and restores each stripped event from the
// fact its Ref names. A turn that ends the plainest way (signals.IdleTail)
// is journaled by no command: its events are fixed by the model call's ID,
// the log position and the workflow task's time, and the projection
// derives them from the workflow task that set the status search attribute
// to idle or, in a run without search attributes, from the task that took
// the call's answer and journaled nothing (idletail.go).
//
// Payloads are decoded with the data converter of the client that wrote
// them (Using(dc)); the package-level functions assume plain payloads and
// fail on encrypted ones rather than guess.
//
// A forked agent's log begins after its fork point with session/forked;
// FromChain reads its chain from there, and Runs says where each run of a
// chain begins and what it started with (agent.Fork reads a source by it).
//
// EndingOf reads how a closed run ended (its close event: the failure's
// message, the termination's reason) in the one vocabulary every view uses
// for a closed agent (signals.Ended).
//
// It performs no I/O beyond the optional Fetch helper and never decodes
// anything but Tether's own payloads.
package projection
