package loop

import (
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Command is what the loop asks the shell to do. The set is closed. Each
// command that has an outcome is answered by one Input (named in its doc);
// the loop never has more than one hook command outstanding, and hook
// commands come last in a Ready.
//
//sumtype:decl
type Command interface{ isCommand() }

type (
	// Interrupt cancels the open turn's in-flight work: its model call,
	// tool activities, retry timer, summary or running hook. Each reports
	// its outcome as canceled.
	Interrupt struct{}
	// RunHooks runs the serial hooks of Point. Outcome: HooksRan.
	RunHooks struct{ Point Point }
	// ChooseModel runs the model waterfall over Default. Outcome: ModelChosen.
	ChooseModel struct{ Default signals.Selection }
	// DecidePreStep runs the pre-step waterfall. Outcome: PreStepDecided.
	DecidePreStep struct{ Batch []Message }
	// ShapeRequest runs the request waterfall over Default. Outcome:
	// RequestShaped.
	ShapeRequest struct{ Default signals.CallConfig }
	// Recover runs the request-error waterfall. Outcome: Recovered.
	Recover struct{ Failure eventlog.Failure }
	// CallModel runs the model activity. Outcome: ModelDone. Call is the
	// call's whole configuration, which Input names only under rules before
	// RulesCallFromHeader.
	CallModel struct {
		ActivityID string
		Summary    string
		Input      signals.ModelInput
		Call       signals.CallConfig
	}
	// Summarize runs the model activity for a compaction summary. Outcome:
	// Summarized.
	Summarize struct {
		ActivityID string
		Summary    string
		Input      signals.ModelInput
	}
	// StartTimer waits After on a durable timer: before a retry turn
	// (signals.BackoffTimer), until a decision's deadline (DecideTimer),
	// for a wait tool call (WaitTimer), or until a scheduled message's
	// time (ScheduleTimer: it belongs to no turn, so a turn's interrupt
	// must not cancel it). Outcome: TimerFired with its ID.
	StartTimer struct {
		ID    string
		After time.Duration
	}
	// CancelTimer cancels a running timer, which then fires Canceled.
	CancelTimer struct{ ID string }
	// StartChild starts a child agent: the agent workflow as a child
	// workflow with ID ChildID, on TaskQueue ("" = the agent's), that
	// outlives its parent's runs. Outcomes: ChildStart, and ChildClosed
	// when it closes while this run lasts.
	StartChild struct {
		ChildID   string
		TaskQueue string
		Summary   string
		Input     signals.AgentInput
	}
	// SignalChild cancels a child's turn or disposes it (graceful: its log
	// records it). No outcome.
	SignalChild struct {
		ChildID string
		Cancel  *signals.Cancel
		Dispose *signals.Dispose
	}
	// ReportToParent signals the parent a settled turn or the end. Outcome
	// only when it fails: ParentGone.
	ReportToParent struct{ Report signals.ChildReport }
	// ListTools lists the tools of the agent's MCP servers with the
	// listing activity. Outcome: ToolsListed.
	ListTools struct {
		ActivityID string
		Summary    string
		Input      signals.ListToolsInput
	}
	// RunToolPre runs the pre hooks of a call about to start. Outcome:
	// ToolPreRan.
	RunToolPre struct{ Call Call }
	// StartTool runs one tool call: a local activity when Local, else an
	// activity. Outcome: ToolDone.
	StartTool struct {
		Call       Call
		Local      bool
		ActivityID string
		Summary    string
		Input      signals.ToolInput
	}
	// RunToolPost runs the post hooks of the next result in model order.
	// Outcome: ToolPostRan.
	RunToolPost struct {
		Call   Call
		Result signals.ToolOutput
	}
	// AnswerMaintenance answers the oldest waiting maintenance request.
	AnswerMaintenance struct {
		Result signals.Maintained
		Err    error
	}
	// ContinueAsNew ends the run; the next one starts from the loop's Seed,
	// taken when the shell has let its handlers finish. CompactionErr is a
	// failed compaction before it, worth a warning. Journal is what the
	// seed carries into this run's history (Carry puts it here); the
	// journals of what the shell applies while it settles follow it.
	ContinueAsNew struct {
		CompactionErr error
		Journal       signals.Journal
	}
	// Finish completes the workflow.
	Finish struct{ Result signals.AgentResult }
	// Fail fails the workflow: the log met an invalid transition.
	Fail struct{ Err error }
)

func (Interrupt) isCommand()         {}
func (RunHooks) isCommand()          {}
func (ChooseModel) isCommand()       {}
func (DecidePreStep) isCommand()     {}
func (ShapeRequest) isCommand()      {}
func (Recover) isCommand()           {}
func (CallModel) isCommand()         {}
func (Summarize) isCommand()         {}
func (StartTimer) isCommand()        {}
func (ListTools) isCommand()         {}
func (RunToolPre) isCommand()        {}
func (StartTool) isCommand()         {}
func (RunToolPost) isCommand()       {}
func (AnswerMaintenance) isCommand() {}
func (ContinueAsNew) isCommand()     {}
func (Finish) isCommand()            {}
func (Fail) isCommand()              {}
func (CancelTimer) isCommand()       {}
func (StartChild) isCommand()        {}
func (SignalChild) isCommand()       {}
func (ReportToParent) isCommand()    {}
