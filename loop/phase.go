package loop

// phase is where the loop stands: which outcome it waits for. The log says
// what happened; the phase says what is outstanding.
type phase int

// The phases and their transitions. "→" is a transition the loop makes
// itself; "⇒ X" emits command X and waits for its outcome.
//
//	idle         disposing → finished ⇒ Finish
//	             work due (a wakeful message, or more next-turn work while
//	               the running interval lasts) → proposing (turn/start)
//	             maintenance queued, no work due ⇒ Summarize (compacting)
//	             nothing due: status idle, ⇒ WriteJournal if events wait
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
//	finished     nothing: the workflow completes
//
// A hook's error or panic, in any hook phase, fails the turn with its
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
)

var phaseNames = [...]string{
	"idle", "proposing", "boundary", "choosing", "deciding", "preparing", "shaping", "calling",
	"recovering", "backoff", "tooling", "stopping", "compacting", "finished", "listing",
}

func (p phase) String() string { return phaseNames[p] }
