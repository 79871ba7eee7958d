package loop

import (
	"fmt"
	"strings"

	"github.com/tetherdev/tether/eventlog"
)

// phase is where the loop stands: which outcome it waits for. The log says
// what happened; the phase says what is outstanding.
type phase int

// The phases and their transitions. "→" is a transition the loop makes
// itself; "⇒ X" emits command X and waits for its outcome.
//
//	idle         session-start due (a fresh agent, rules 4) ⇒ RunHooks
//	               session-start (publishing)
//	             disposing → finished ⇒ Finish
//	             work due (a wakeful message, or more next-turn work while
//	               the running interval lasts) → proposing (turn/start)
//	             maintenance queued, no work due ⇒ Summarize (compacting)
//	             nothing due: status idle; what waits is due (Ready.Journal)
//	proposing    canceling → idle (turn/end canceled)
//	             the last step failed → idle (turn/end failed)
//	             natural stop, next-step list empty ⇒ RunHooks turn-stopping
//	             otherwise claim the batch; over budget → idle (turn/end
//	               budget); else ⇒ RunHooks step-boundary
//	boundary     MCP servers not listed this turn (or this run) ⇒
//	               ListTools (listing); else ⇒ ChooseModel (choosing)
//	listing      tools/listed if anything changed ⇒ ChooseModel
//	               (choosing); canceling → proposing
//	choosing     ⇒ DecidePreStep (deciding)
//	deciding     reject → idle (turn/end blocked)
//	             enter with Compact ⇒ Summarize (compacting), then as enter
//	             enter → step/start ⇒ RunHooks runtime-context (preparing)
//	preparing    ⇒ ShapeRequest (shaping)
//	shaping      admit system, users, runtime context, request/header,
//	               request/context ⇒ CallModel (calling)
//	calling      success without calls → proposing (step/end)
//	             success with calls → tooling
//	             failure: assistant/attempt, step/end ⇒ Recover (recovering)
//	recovering   canceling or no retry → proposing
//	             retry with Compact ⇒ Summarize (compacting), then retry
//	               only if the context shrank
//	             retry with After ⇒ StartTimer (backoff)
//	             retry → proposing (turn/end failed, turn/start retry_of)
//	backoff      fired → proposing (retry turn); canceled → proposing
//	tooling      calls start by mode ⇒ RunToolPre, StartTool; results
//	               commit in model order ⇒ RunToolPost; all committed →
//	               proposing (step/end)
//	stopping     canceling → idle (turn/end canceled); next-step input
//	               pending → proposing; else → idle (turn/end completed or
//	               concluded)
//	compacting   summary recorded or not needed → back to what asked for
//	               it: the step (deciding), the retry (recovering), the
//	               maintenance task (idle ⇒ AnswerMaintenance) or
//	               Continue-As-New (⇒ ContinueAsNew)
//	publishing   session/started (with the hooks' errors: a
//	               notification never fails anything) → idle
//	finished     nothing: the workflow completes
//
// A hook's error or panic, in any hook phase but publishing, fails the turn with its
// reason (the open step closes; dangling calls get abandoned results).
const (
	idle phase = iota
	proposing
	boundary
	choosing
	deciding
	preparing
	shaping
	calling
	recovering
	backoff
	tooling
	stopping
	compacting
	finished
	listing
	publishing
)

var phaseNames = [...]string{
	"idle", "proposing", "boundary", "choosing", "deciding", "preparing", "shaping", "calling",
	"recovering", "backoff", "tooling", "stopping", "compacting", "finished", "listing", "publishing",
}

func (p phase) String() string { return phaseNames[p] }

// trailLen is how many phase changes the loop remembers for its errors.
const trailLen = 8

// trail is the loop's latest phase changes, oldest first: what an
// ErrInvalidTransition names, as sdk-go's state machines name their
// history. It is kept for that message only: it is not durable (a seed
// does not carry it), and nothing decides on it.
type trail struct {
	moves [trailLen]move
	n     int // moves made; moves[n%trailLen] is the next slot
}

// move is one phase change.
type move struct{ from, to phase }

func (t *trail) add(from, to phase) {
	t.moves[t.n%trailLen] = move{from, to}
	t.n++
}

// String reads the trail as a path, "… idle → proposing → boundary", with
// "…" when older changes were dropped; "" before the first change.
func (t *trail) String() string {
	var b strings.Builder
	first := max(0, t.n-trailLen)
	if first > 0 {
		b.WriteString("… ")
	}
	for i := first; i < t.n; i++ {
		m := t.moves[i%trailLen]
		if i == first {
			b.WriteString(m.from.String())
		}
		b.WriteString(" → " + m.to.String())
	}
	return b.String()
}

// moveTo is how the loop changes phase, every change remembered in its
// trail; a move to the phase it is in changes nothing.
func (l *Loop) moveTo(p phase) {
	if p != l.phase {
		l.trail.add(l.phase, p)
		l.phase = p
	}
}

// invalid is ErrInvalidTransition for what arrived, naming the phase and
// the trail that led there.
func (l *Loop) invalid(format string, args ...any) error {
	err := fmt.Errorf("%w: %s in phase %s", eventlog.ErrInvalidTransition, fmt.Sprintf(format, args...), l.phase)
	if s := l.trail.String(); s != "" {
		err = fmt.Errorf("%w, after %s", err, s)
	}
	return err
}
