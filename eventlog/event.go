package eventlog

import "encoding/json"

// Event is one fact in an agent's session log. The set is closed: only this
// package defines variants, and Decode knows every one of them.
//
//sumtype:decl
type Event interface {
	// Type is the stable wire tag of the event.
	Type() Type
	isEvent()
}

// Type is the persisted tag of an Event. Values are durable: never rename one.
type Type string

// The closed set of session event types.
const (
	TypeInboxInserted  Type = "inbox/inserted"
	TypeInboxClaimed   Type = "inbox/claimed"
	TypeInboxDiscarded Type = "inbox/discarded"
	// TypeMessageScheduled: a message that enters the inbox later, by a
	// durable timer (MessageScheduled).
	TypeMessageScheduled Type = "inbox/scheduled"
	TypeTurnStart        Type = "turn/start"
	TypeTurnEnd          Type = "turn/end"
	TypeStepStart        Type = "step/start"
	TypeStepEnd          Type = "step/end"
	TypeSystemMessage    Type = "system/message"
	TypeUserMessage      Type = "user/message"
	TypeRuntimeContext   Type = "runtime/context"
	TypeAssistantMessage Type = "assistant/message"
	TypeAssistantAttempt Type = "assistant/attempt"
	TypeToolCall         Type = "tool/call"
	TypeToolResult       Type = "tool/result"
	TypeStatus           Type = "status"
	TypeContextPruned    Type = "context/pruned"
	TypeContextCompacted Type = "context/compacted"
	// Control events (rules 2): what a client or hook asked of the loop,
	// recorded when it arrived, so the loop's state is a fold of its log.
	TypeModelSelected     Type = "model/selected"
	TypeTurnCanceling     Type = "turn/canceling"
	TypeAgentDisposing    Type = "agent/disposing"
	TypeMaintenanceQueued Type = "maintenance/queued"
	TypeMaintenanceDone   Type = "maintenance/done"
	// What a model request was sent with, content-free (rules 2).
	TypeRequestHeader  Type = "request/header"
	TypeRequestContext Type = "request/context"
	// Orchestration: child agents, people in the loop, durable waits.
	TypeChildStarted      Type = "child/started"
	TypeChildSettled      Type = "child/settled"
	TypeChildEnded        Type = "child/ended"
	TypeDecisionRequested Type = "decision/requested"
	TypeDecisionMade      Type = "decision/made"
	TypeWaitStarted       Type = "wait/started"
	// MCP: the tools the agent's MCP servers offered.
	TypeToolsListed Type = "tools/listed"
)

// Types lists every event type in a stable order (tests and golden files).
var Types = []Type{
	TypeInboxInserted, TypeInboxClaimed, TypeInboxDiscarded,
	TypeTurnStart, TypeTurnEnd, TypeStepStart, TypeStepEnd,
	TypeSystemMessage, TypeUserMessage, TypeRuntimeContext, TypeAssistantMessage, TypeAssistantAttempt,
	TypeToolCall, TypeToolResult, TypeStatus, TypeContextPruned, TypeContextCompacted,
	TypeModelSelected, TypeTurnCanceling, TypeAgentDisposing, TypeMaintenanceQueued, TypeMaintenanceDone,
	TypeRequestHeader, TypeRequestContext,
	TypeChildStarted, TypeChildSettled, TypeChildEnded, TypeDecisionRequested, TypeDecisionMade, TypeWaitStarted,
	TypeToolsListed, TypeMessageScheduled, TypeSessionStarted,
	TypeSessionForked, TypeSessionRewound,
}

// MessageID identifies one accepted inbox message for its whole life:
// inserted, then claimed or discarded.
type MessageID string

// List names one of the inbox's two ordered lists.
type List string

const (
	// NextTurn messages open a turn of their own (followup).
	NextTurn List = "next-turn"
	// NextStep messages enter the next step boundary (steer, inject).
	NextStep List = "next-step"
)

// Valid reports whether l is one of the two lists.
func (l List) Valid() bool { return l == NextTurn || l == NextStep }

// DiscardOutcome says why a pending message left the inbox unclaimed.
type DiscardOutcome string

const (
	DiscardCanceled DiscardOutcome = "canceled"
	DiscardDisposed DiscardOutcome = "disposed"
)

// InboxInserted records an accepted message entering a list.
type InboxInserted struct {
	MessageID MessageID `json:"message_id,omitempty"`
	List      List      `json:"list"`
	Content   string    `json:"content,omitempty"`
	// Wake is false for inject: the message waits for work that is already due.
	Wake bool `json:"wake"`
	// From says who sent it; empty for a user. ByTimer delivers a
	// scheduled message (MessageScheduled) when its time came.
	From *Initiator `json:"from,omitempty"`
}

// InboxClaimed records the atomic removal of a message by a turn.
type InboxClaimed struct {
	MessageID MessageID `json:"message_id"`
	List      List      `json:"list"`
	Turn      int       `json:"turn"`
}

// InboxDiscarded records an ordinary removal: the message is never claimed.
type InboxDiscarded struct {
	MessageID MessageID      `json:"message_id"`
	List      List           `json:"list"`
	Outcome   DiscardOutcome `json:"outcome"`
	Cause     string         `json:"cause,omitempty"`
}

// TurnStart opens turn Turn. RetryOf is the failed turn a retry turn repeats.
type TurnStart struct {
	Turn    int `json:"turn"`
	RetryOf int `json:"retry_of,omitempty"`
}

// EndReason says how a turn closed.
type EndReason string

const (
	EndCompleted EndReason = "completed" // the model stopped naturally
	EndConcluded EndReason = "concluded" // a tool result concluded the turn
	EndBlocked   EndReason = "blocked"   // pre-step rejected the claimed batch
	EndCanceled  EndReason = "canceled"  // cancel aborted the turn
	EndFailed    EndReason = "failed"    // a terminal failure closed the turn
	EndBudget    EndReason = "budget"    // a token or cost budget was exhausted
)

// TurnEnd closes turn Turn.
type TurnEnd struct {
	Turn   int       `json:"turn"`
	Reason EndReason `json:"reason"`
	Error  string    `json:"error,omitempty"`
}

// StepStart opens one model request step.
type StepStart struct {
	Turn     int    `json:"turn"`
	Step     int    `json:"step"`
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Effort   string `json:"effort,omitempty"`
}

// StepEnd closes a step.
type StepEnd struct {
	Turn int `json:"turn"`
	Step int `json:"step"`
}

// SystemMessage records the system prompt; it is recorded only when it changed.
type SystemMessage struct {
	Content string `json:"content,omitempty"`
}

// UserMessage records a claimed message entering the model's context. It
// is an event, not a message in transit (signals.Message) or in the inbox
// (Pending): its wire form is the session log's, locked by golden files
// ("message_id", both keys omitted when empty), so it stays a type of its
// own though it carries the same ID and content.
type UserMessage struct {
	MessageID MessageID `json:"message_id,omitempty"`
	Content   string    `json:"content,omitempty"`
}

// RuntimeContext records the runtime-context snapshot admitted after a step's
// messages; it is recorded only when it changed, and a changed snapshot
// alone never opens a step.
type RuntimeContext struct {
	Content string `json:"content,omitempty"`
}

// ToolCallRequest is one tool call the model asked for.
type ToolCallRequest struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Usage counts tokens of one model call. InputTokens counts every prompt
// token, however it was billed; CachedTokens are the prompt tokens read
// from the provider's prompt cache and CacheWriteTokens those written to
// it, both also counted in InputTokens (each provider fills them as its
// API reports them). The rest of InputTokens was billed uncached.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CachedTokens     int64 `json:"cached_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// FinishReason is the loop's normalised reason a model call ended.
type FinishReason string

const (
	FinishStop          FinishReason = "stop"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishMaxTokens     FinishReason = "max_tokens"
	FinishContentFilter FinishReason = "content_filter"
	FinishOther         FinishReason = "other"
)

// AssistantMessage records a successful model call as assembled.
type AssistantMessage struct {
	Text         string            `json:"text,omitempty"`
	ToolCalls    []ToolCallRequest `json:"tool_calls,omitempty"`
	Usage        Usage             `json:"usage"`
	FinishReason FinishReason      `json:"finish_reason"`
	Provider     string            `json:"provider,omitempty"`
	Model        string            `json:"model,omitempty"`
	// DefaultModel is the model the worker's defaults chose for a call
	// that named none: what the call asked for, where Model is what the
	// provider says answered (often a dated snapshot of it).
	DefaultModel string `json:"default_model,omitempty"`
	// Stream summarises how the response arrived; never its text.
	Stream *StreamTiming `json:"stream,omitempty"`
}

// AssistantAttempt records a failed model call with its normalised failure.
type AssistantAttempt struct {
	Failure  Failure       `json:"failure"`
	Provider string        `json:"provider,omitempty"`
	Model    string        `json:"model,omitempty"`
	Stream   *StreamTiming `json:"stream,omitempty"`
}

// StreamTiming is the compact timing summary of one model call (seed 002's
// "compact timed stream", without the chunks' text): time to the first
// chunk, the whole call, and how many chunks arrived. A call that did not
// stream has no chunks and no first-chunk time.
type StreamTiming struct {
	FirstMs int64 `json:"first_ms,omitempty"`
	Ms      int64 `json:"ms"`
	Chunks  int   `json:"chunks,omitempty"`
}

// ToolCall records that a tool call started. The arguments live in the
// assistant message that asked for it.
type ToolCall struct {
	CallID         string `json:"call_id"`
	Name           string `json:"name"`
	IdempotencyKey string `json:"idempotency_key"`
}

// ToolResult records a tool call's outcome, committed in the model's call order.
type ToolResult struct {
	CallID        string `json:"call_id"`
	Name          string `json:"name"`
	Content       string `json:"content"`
	IsError       bool   `json:"is_error,omitempty"`
	ConcludesTurn bool   `json:"concludes_turn,omitempty"`
	// Outcome says why the loop made the result itself; empty when the
	// tool ran and answered.
	Outcome ToolOutcome `json:"outcome,omitempty"`
}

// ToolOutcome says how a tool call ended when the tool did not answer it.
type ToolOutcome string

const (
	ToolUnavailable ToolOutcome = "unavailable" // the agent may not use the tool; it never started
	ToolDenied      ToolOutcome = "denied"      // a pre hook refused it
	ToolCanceled    ToolOutcome = "canceled"    // the turn was canceled before or while it ran
	ToolFailed      ToolOutcome = "failed"      // every attempt of its activity failed
	ToolAbandoned   ToolOutcome = "abandoned"   // the turn failed around it
	ToolUnanswered  ToolOutcome = "unanswered"  // nobody answered its question in time
)

// ContextPruned replaces the content of old tool results in the model's
// context by a notice; the log keeps them.
type ContextPruned struct {
	CallIDs []string `json:"call_ids"`
}

// ContextCompacted replaces the model's context before its last Keep
// messages by a summary (Text), produced by a model activity.
type ContextCompacted struct {
	Text string `json:"text,omitempty"`
	Keep int    `json:"keep"`
}

// Status is whole-agent activity. Lifetime (created…disposed) is not a status.
type Status string

const (
	StatusIdle    Status = "idle"
	StatusRunning Status = "running"
)

// StatusChanged records a real transition; never the same status twice in a row.
type StatusChanged struct {
	Status Status `json:"status"`
}

func (InboxInserted) Type() Type     { return TypeInboxInserted }
func (InboxClaimed) Type() Type      { return TypeInboxClaimed }
func (InboxDiscarded) Type() Type    { return TypeInboxDiscarded }
func (TurnStart) Type() Type         { return TypeTurnStart }
func (TurnEnd) Type() Type           { return TypeTurnEnd }
func (StepStart) Type() Type         { return TypeStepStart }
func (StepEnd) Type() Type           { return TypeStepEnd }
func (SystemMessage) Type() Type     { return TypeSystemMessage }
func (UserMessage) Type() Type       { return TypeUserMessage }
func (RuntimeContext) Type() Type    { return TypeRuntimeContext }
func (AssistantMessage) Type() Type  { return TypeAssistantMessage }
func (AssistantAttempt) Type() Type  { return TypeAssistantAttempt }
func (ToolCall) Type() Type          { return TypeToolCall }
func (ToolResult) Type() Type        { return TypeToolResult }
func (StatusChanged) Type() Type     { return TypeStatus }
func (ContextPruned) Type() Type     { return TypeContextPruned }
func (ContextCompacted) Type() Type  { return TypeContextCompacted }
func (ModelSelected) Type() Type     { return TypeModelSelected }
func (TurnCanceling) Type() Type     { return TypeTurnCanceling }
func (AgentDisposing) Type() Type    { return TypeAgentDisposing }
func (MaintenanceQueued) Type() Type { return TypeMaintenanceQueued }
func (MaintenanceDone) Type() Type   { return TypeMaintenanceDone }
func (RequestHeader) Type() Type     { return TypeRequestHeader }
func (RequestContext) Type() Type    { return TypeRequestContext }

func (InboxInserted) isEvent()     {}
func (InboxClaimed) isEvent()      {}
func (InboxDiscarded) isEvent()    {}
func (TurnStart) isEvent()         {}
func (TurnEnd) isEvent()           {}
func (StepStart) isEvent()         {}
func (StepEnd) isEvent()           {}
func (SystemMessage) isEvent()     {}
func (UserMessage) isEvent()       {}
func (RuntimeContext) isEvent()    {}
func (AssistantMessage) isEvent()  {}
func (AssistantAttempt) isEvent()  {}
func (ToolCall) isEvent()          {}
func (ToolResult) isEvent()        {}
func (StatusChanged) isEvent()     {}
func (ContextPruned) isEvent()     {}
func (ContextCompacted) isEvent()  {}
func (ModelSelected) isEvent()     {}
func (TurnCanceling) isEvent()     {}
func (AgentDisposing) isEvent()    {}
func (MaintenanceQueued) isEvent() {}
func (MaintenanceDone) isEvent()   {}
func (RequestHeader) isEvent()     {}
func (RequestContext) isEvent()    {}
