package signals

import (
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/internal/text"
)

// Signal names a fire-and-forget message of payload type T.
type Signal[T any] struct{ Name string }

// Update names a validated, acknowledged message: In is validated before it
// reaches history and the handler answers Out.
type Update[In, Out any] struct{ Name string }

// Query names a read-only question answered without touching history.
type Query[In, Out any] struct{ Name string }

// Signals. Each accepted message gets an inbox event in the session log.
var (
	FollowupSignal = Signal[Message]{Name: "followup"} // next-turn, wakes
	SteerSignal    = Signal[Message]{Name: "steer"}    // next-step, wakes
	InjectSignal   = Signal[Message]{Name: "inject"}   // next-step, does not wake
	SendSignal     = Signal[Send]{Name: "send"}        // explicit list and wake
	CancelSignal   = Signal[Cancel]{Name: "cancel"}    // abort the active turn
	DisposeSignal  = Signal[Dispose]{Name: "dispose"}  // end the agent
	// SelectModelSignal requests a model switch, committed at the next step
	// boundary: it never tears a step already proposed.
	SelectModelSignal = Signal[Selection]{Name: "select-model"}
)

// Updates: the same operations for callers that need an acknowledgement. The
// validator rejects bad input, which then never reaches history.
var (
	FollowupUpdate = Update[Message, Ack]{Name: "followup"}
	SteerUpdate    = Update[Message, Ack]{Name: "steer"}
	InjectUpdate   = Update[Message, Ack]{Name: "inject"}
	SendUpdate     = Update[Send, Ack]{Name: "send"}
	// MaintainUpdate runs a maintenance task in the agent's next true idle
	// phase and answers when it is done (seed 003's runMaintenance).
	MaintainUpdate = Update[Maintain, Maintained]{Name: "maintain"}
	// WaitIdleUpdate returns once the agent is idle with no wakeful work
	// pending, or disposed. Its validator rejects with ErrAlreadyIdle when
	// there is nothing to wait for, so an idle agent's history is untouched.
	WaitIdleUpdate = Update[WaitIdle, StatusView]{Name: "wait-idle"}
	// SelectModelUpdate is SelectModelSignal acknowledged: its validator
	// refuses, with RejectSelection, a switch the worker cannot run (a
	// provider it does not offer, a name over MaxNameBytes), which then
	// never reaches history. It answers the position of the model/selected
	// event; the switch applies from the next step proposed on.
	SelectModelUpdate = Update[Selection, SelectionAck]{Name: "select-model"}
	// RewindUpdate brings an idle agent back to the end of an earlier turn
	// (eventlog.SessionRewound). Its validator refuses, recording
	// nothing, a turn that is negative or has not ended
	// (ErrInvalidRewind), an agent with a turn open, and a turn the agent
	// can no longer rebuild in place (ErrRewindLost: fork it instead).
	RewindUpdate = Update[Rewind, Rewound]{Name: "rewind"}
)

// Rewind is the argument of RewindUpdate: the turn whose end the agent
// goes back to (0: before its first turn), and who asks.
type Rewind struct {
	ToTurn int    `json:"to_turn"`
	By     string `json:"by,omitempty"`
}

// Rewound answers RewindUpdate: the turn the agent is back at, the last
// turn rewound past, how many messages the conversation kept, and the
// position of the session/rewound event (-1 when the agent already stood
// at the end of that turn, and nothing was recorded).
type Rewound struct {
	Turn int   `json:"turn"`
	Past int   `json:"past"`
	Keep int   `json:"keep"`
	Seq  int64 `json:"seq"`
}

// RejectSelection is the rejection type of a model switch the worker
// cannot run. Clients see it as an error matching ErrInvalidOptions.
const RejectSelection = "tether.InvalidSelection"

// SelectionAck acknowledges an accepted model switch.
type SelectionAck struct {
	Selection Selection `json:"selection"`
	Seq       int64     `json:"seq"` // position of its model/selected event
}

// Queries.
var (
	StatusQuery = Query[struct{}, StatusView]{Name: "status"}
	LogQuery    = Query[LogRequest, LogPage]{Name: "log"}
	// FeedQuery asks the worker holding the agent where it streams the
	// agent's model calls (LiveFeed); the answer is never in history.
	FeedQuery = Query[struct{}, LiveFeed]{Name: "feed"}
)

// Message is a followup, steer or inject. ID is chosen by the sender (the
// client makes one when empty) and doubles as the update ID, so a retried
// send is deduplicated.
type Message struct {
	ID      eventlog.MessageID `json:"id"`
	Content string             `json:"content"`
}

// Send routes a message to a list explicitly (seed 003's send). A send
// with At in the future is scheduled: a durable timer delivers it into
// List at At, from the initiator "timer" (eventlog.MessageScheduled); a
// zero At, or one already past, delivers it now. At most MaxScheduleAhead
// ahead, and at most MaxScheduled messages wait per agent.
type Send struct {
	Message
	List eventlog.List `json:"list"`
	Wake bool          `json:"wake"`
	At   time.Time     `json:"at,omitzero"`
}

// Cancel aborts the active turn. Unless KeepInbox, pending messages are
// discarded with outcome canceled.
type Cancel struct {
	Cause     string `json:"cause,omitempty"`
	KeepInbox bool   `json:"keep_inbox,omitempty"`
}

// Dispose ends the agent: the active turn is canceled, pending messages are
// discarded with outcome disposed and the workflow completes.
type Dispose struct {
	Cause string `json:"cause,omitempty"`
}

// Ack acknowledges an accepted message.
type Ack struct {
	MessageID eventlog.MessageID `json:"message_id"`
	Seq       int64              `json:"seq"` // position of its inbox/inserted event
}

// MaintenanceTask names a maintenance task.
type MaintenanceTask string

// Maintenance tasks.
const (
	// TaskCompact compacts the agent's model context.
	TaskCompact MaintenanceTask = "compact"
	// TaskUpgrade continues the agent as new at its next true idle phase,
	// so that a run pinned to the version of Worker Deployment Versioning
	// that started it goes on on the deployment's current version (without
	// versioning, on whichever worker takes the next run). Runs from
	// before the task (their loop rules) refuse it.
	TaskUpgrade MaintenanceTask = "upgrade"
)

// Maintain is the argument of MaintainUpdate.
type Maintain struct {
	Task MaintenanceTask `json:"task"`
}

// Maintained answers MaintainUpdate.
type Maintained struct {
	Task MaintenanceTask `json:"task"`
	// ContextTokens before and after the task (estimated).
	Before int `json:"before"`
	After  int `json:"after"`
}

// WaitIdle is the argument of WaitIdleUpdate.
type WaitIdle struct{}

// Idle reports whether the agent has no open turn and no work that would
// open one (seed 003's idle for whenIdle).
func (v StatusView) Idle() bool { return !v.InTurn && !v.Due }

// StatusView answers StatusQuery.
//
// Its size is bounded whatever the agent holds, far below Temporal's 2 MB
// limit on a query or update answer: the inbox lists show the oldest
// MaxStatusItems messages, each cut to MaxPreviewBytes (NextTurnLen and
// NextStepLen count them all); pending decisions show their arguments cut
// the same way. Read the session log for whole contents.
type StatusView struct {
	Status eventlog.Status `json:"status"`
	Turn   int             `json:"turn"`
	Step   int             `json:"step"`
	InTurn bool            `json:"in_turn"`
	// Due is set when pending work will open a turn.
	Due         bool               `json:"due,omitempty"`
	NextTurn    []eventlog.Pending `json:"next_turn"`
	NextStep    []eventlog.Pending `json:"next_step"`
	NextTurnLen int                `json:"next_turn_len,omitempty"`
	NextStepLen int                `json:"next_step_len,omitempty"`
	LogLen      int64              `json:"log_len"`
	Disposed    bool               `json:"disposed"`
	// Runs counts the runs of the agent's chain (Continue-As-New).
	Runs int `json:"runs,omitempty"`
	// Usage is what the agent (its children included) spent so far.
	Usage eventlog.Usage `json:"usage,omitzero"`
	// Pending are tool calls waiting for a person; Waits wait calls
	// sleeping; Children the child agents that have not ended.
	Pending  []PendingView   `json:"pending,omitempty"`
	Waits    []eventlog.Wait `json:"waits,omitempty"`
	Children []ChildView     `json:"children,omitempty"`
	// Scheduled are the messages waiting for their time, the first
	// MaxStatusItems in the order they were scheduled, content cut to
	// previews; ScheduledLen counts them all, NextAt is the earliest time.
	Scheduled    []eventlog.Scheduled `json:"scheduled,omitempty"`
	ScheduledLen int                  `json:"scheduled_len,omitempty"`
	NextAt       time.Time            `json:"next_at,omitzero"`
}

// Bounds of a StatusView.
const (
	MaxStatusItems  = 100
	MaxPreviewBytes = 512
)

// PendingView is a tool call waiting for a person: the call, its arguments
// (a preview), since when, and until when.
type PendingView struct {
	eventlog.PendingDecision
	Arguments string `json:"arguments,omitempty"`
}

// ChildView is a child agent as its parent sees it.
type ChildView struct {
	ID      string             `json:"id"`
	Mode    eventlog.ChildMode `json:"mode"`
	Settled int                `json:"settled,omitempty"`
	Spent   eventlog.Usage     `json:"spent,omitzero"`
}

// Blocked reports whether the open turn waits for a person.
func (v StatusView) Blocked() bool { return len(v.Pending) > 0 }

// Preview cuts s to MaxPreviewBytes at a rune boundary, marking the cut.
func Preview(s string) string {
	if len(s) <= MaxPreviewBytes {
		return s
	}
	return text.Cut(s, MaxPreviewBytes-len("…")) + "…"
}

// LogRequest asks for events with From <= seq < To (To 0 = to the end), at
// most Limit of them (0 = DefaultLogPage).
type LogRequest struct {
	From  int64 `json:"from"`
	To    int64 `json:"to,omitempty"`
	Limit int   `json:"limit,omitempty"`
}

// DefaultLogPage bounds one LogQuery answer.
const DefaultLogPage = 500

// LogPage answers LogQuery. Next is the From of the following page; Next ==
// Len means the log has been read to its end.
//
// A run continued from a seed holds the events from Base on. Asked for
// events before Base, it answers from Base with Context, the model-facing
// conversation up to Base, and names PrevRun, the run that holds them.
type LogPage struct {
	Events  []eventlog.Envelope            `json:"events"`
	Next    int64                          `json:"next"`
	Len     int64                          `json:"len"`
	Base    int64                          `json:"base,omitempty"`
	PrevRun string                         `json:"prev_run,omitempty"`
	Context *eventlog.ConversationSnapshot `json:"context,omitempty"`
}
