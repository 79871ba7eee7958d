package loop

import (
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// PointSessionStart is seed 003's agent/session-start (rules 4): a
// notification run once per agent, when it is published, before its first
// turn. Its HooksRan reports every hook's failure in Err, joined
// (errors.Join), one error per failing hook.
const PointSessionStart Point = "session-start"

// Session start, as the loop runs it:
//
//   - Only under Rules4, only for a fresh agent (New, never Restore: a
//     continued run's agent started in an earlier run, and its seed's
//     state says so, State.SessionStarted), and only when the agent
//     enabled a session-start hook (Config.SessionStart). It comes before
//     anything else the idle phase does: before the first turn opens and
//     before a dispose finishes the agent.
//   - While the hooks run (phase publishing) requests are recorded as ever:
//     what the hooks inject or steer, and what clients send, waits in the
//     inbox for the first turn; no turn opens and the run does not
//     continue as new.
//   - Their outcome is recorded as session/started with each failing
//     hook's error. A notification cannot veto: an error or panic changes
//     nothing else, and the loop goes on idle, where a due message opens
//     the first turn, which claims what the hooks injected.

// startSession runs the session-start hooks.
func (l *Loop) startSession() {
	l.start = false
	l.moveTo(publishing)
	l.emit(RunHooks{Point: PointSessionStart})
}

// sessionStarted records the session-start hooks' outcome and goes on idle.
func (l *Loop) sessionStarted(now time.Time, in HooksRan) {
	if !l.expect(publishing, in) {
		return
	}
	l.record(now, "", eventlog.SessionStarted{Hooks: l.cfg.SessionStart, Errors: errorTexts(in.Err)})
	l.moveTo(idle)
}

// errorTexts lists the messages of a joined error, or of err alone.
func errorTexts(err error) []string {
	if err == nil {
		return nil
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []string{err.Error()}
	}
	var out []string
	for _, e := range joined.Unwrap() {
		if e != nil {
			out = append(out, e.Error())
		}
	}
	return out
}
