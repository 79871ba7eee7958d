package loop

import (
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Input is everything that can happen to the loop. The set is closed.
//
// Requests (Accept, Make, Cancel, Dispose, SelectModel, Maintain, Rewind) come from
// clients and hooks at any time: Step records them and moves nothing else,
// so a batch of messages delivered together is seen whole at the next
// boundary. Outcomes (every other input) report what a command came to;
// Step then makes every transition that needs no I/O and returns the
// commands due.
//
//sumtype:decl
type Input interface{ isInput() }

// Requests.
type (
	// Accept inserts a client's message into List. Check it first. From
	// is nil for a user; the shell sets it for a parent's task. An At
	// after the step's time schedules it instead (CheckSchedule): a
	// durable timer delivers it then, from the initiator "timer".
	Accept struct {
		Message signals.Message
		List    eventlog.List
		Wake    bool
		From    *eventlog.Initiator
		At      time.Time
	}
	// Make inserts a message a hook made (steering from turn-stopping).
	Make struct {
		Content string
		List    eventlog.List
		Wake    bool
	}
	// Cancel aborts the open turn and, unless KeepInbox, discards every
	// pending message.
	Cancel struct {
		Cause     string
		KeepInbox bool
	}
	// Dispose ends the agent once its open turn closed.
	Dispose struct{ Cause string }
	// SelectModel switches the model from the next proposed step on.
	// Resolved marks the worker's defaults made explicit, not a switch
	// (eventlog.ModelSelected.Resolved).
	SelectModel struct {
		Selection signals.Selection
		Resolved  bool
	}
	// Maintain queues a maintenance task for the next true idle phase.
	Maintain struct{ Task signals.MaintenanceTask }
)

// Outcomes.
type (
	// Resume reports nothing; the loop looks at what is due (the shell's
	// first step, and every wake after a request).
	Resume struct{}
	// HooksRan reports a serial hook point; Text is the runtime-context
	// snapshot for PointRuntimeContext.
	HooksRan struct {
		Point Point
		Text  string
		Err   error
	}
	// ModelChosen reports the model waterfall.
	ModelChosen struct {
		Selection signals.Selection
		Err       error
	}
	// PreStepDecided reports the pre-step waterfall.
	PreStepDecided struct {
		Decision Decision
		Err      error
	}
	// RequestShaped reports the request waterfall.
	RequestShaped struct {
		Config signals.CallConfig
		Err    error
	}
	// ModelDone reports the model call; Failure is nil on success.
	ModelDone struct {
		Output  signals.ModelOutput
		Failure *eventlog.Failure
		Stream  *eventlog.StreamTiming // of a failed call
	}
	// Recovered reports the request-error waterfall.
	Recovered struct {
		Action Action
		Err    error
	}
	// TimerFired reports a timer (signals.BackoffTimer, DecideTimer,
	// WaitTimer, ScheduleTimer); Canceled when it was interrupted or
	// canceled.
	TimerFired struct {
		ID       string
		Canceled bool
	}
	// ToolsListed reports ListTools: the listing activity's result, or
	// Err when it failed.
	ToolsListed struct {
		Listing eventlog.ToolsListed
		Err     error
	}
	// ToolPreRan reports the pre hooks of one call; Denied is a hook's
	// refusal (the model sees it), Err any other hook failure.
	ToolPreRan struct {
		CallID string
		Denied string
		Err    error
	}
	// ToolDone reports one tool activity. Ref names the history fact that
	// holds Output (an ActivityRef or a LocalRef). Canceled is set when the
	// activity was canceled, Failed when every attempt failed (Output is
	// then unset).
	ToolDone struct {
		CallID   string
		Output   signals.ToolOutput
		Ref      eventlog.Ref
		Canceled bool
		Failed   string
	}
	// ToolPostRan reports the post hooks of one call, with the result they
	// leave.
	ToolPostRan struct {
		CallID string
		Output signals.ToolOutput
		Err    error
	}
	// Summarized reports the compaction summary call.
	Summarized struct {
		Text string
		Err  error
	}
	// SpawnChild starts a detached child for a client or a hook; its
	// reports arrive in the inbox.
	SpawnChild struct{ Spawn signals.Spawn }
	// ChildStart reports StartChild: the child workflow started, or Err.
	ChildStart struct {
		ChildID string
		Err     error
	}
	// ChildReport is a child's report of a settled turn, or of its end.
	ChildReport struct{ Report signals.ChildReport }
	// ChildClosed reports that a child's workflow closed.
	ChildClosed struct {
		ChildID, Status string
		// Spent is everything the child spent, when its result says
		// (rules 3 count what its reports did not).
		Spent eventlog.Usage
	}
	// Decide approves, denies or answers a call waiting for a person.
	// Check it first (CheckDecision).
	Decide struct {
		Verdict  Verdict
		Decision signals.Decision
	}
	// ParentGone reports that a report could not reach the parent: it is
	// gone, so this agent finishes its turn and stops.
	ParentGone struct{ Err error }
	// Continue asks to continue as new at this idle boundary. The loop
	// answers ContinueAsNew, perhaps after compacting, or moves on when it
	// may not (a dispose, a turn that became due with an inbox too large
	// for a seed).
	Continue struct{}
)

func (Accept) isInput()         {}
func (Make) isInput()           {}
func (Cancel) isInput()         {}
func (Dispose) isInput()        {}
func (SelectModel) isInput()    {}
func (Maintain) isInput()       {}
func (Resume) isInput()         {}
func (HooksRan) isInput()       {}
func (ModelChosen) isInput()    {}
func (PreStepDecided) isInput() {}
func (RequestShaped) isInput()  {}
func (ModelDone) isInput()      {}
func (Recovered) isInput()      {}
func (TimerFired) isInput()     {}
func (ToolsListed) isInput()    {}
func (ToolPreRan) isInput()     {}
func (ToolDone) isInput()       {}
func (ToolPostRan) isInput()    {}
func (Summarized) isInput()     {}
func (Continue) isInput()       {}
func (SpawnChild) isInput()     {}
func (ChildStart) isInput()     {}
func (ChildReport) isInput()    {}
func (ChildClosed) isInput()    {}
func (Decide) isInput()         {}
func (ParentGone) isInput()     {}

// Verdict is a person's decision on a waiting call.
type Verdict string

const (
	Approve Verdict = "approve"
	Deny    Verdict = "deny"
	Answer  Verdict = "answer"
)
