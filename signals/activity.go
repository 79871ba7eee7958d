package signals

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// LogRef points at an agent's session log as of one position: events with
// seq < Upto. An activity given a LogRef reads the log itself (a query on its
// workflow, behind a worker cache), so the conversation is never copied into
// history again.
//
// AgentID and RunID are left empty when the log is the activity's own
// workflow's (the activity takes them from its info), which keeps every
// activity input a few dozen bytes smaller.
type LogRef struct {
	AgentID string `json:"agent_id,omitempty"`
	RunID   string `json:"run_id,omitempty"`
	Upto    int64  `json:"upto"`
}

// CallConfig is the frozen configuration of one model request.
type CallConfig struct {
	Provider  string   `json:"provider,omitempty"`
	Model     string   `json:"model,omitempty"`
	Effort    string   `json:"effort,omitempty"`
	MaxTokens int      `json:"max_tokens,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	Turn      int      `json:"turn"`
	Step      int      `json:"step"`
	// Summarize, when set, asks for a summary of the conversation except
	// its last Keep messages instead of the next assistant message.
	Summarize *Summarize `json:"summarize,omitempty"`
	// Stream names the llm/stream hooks the call runs through, outermost
	// first (the agent's enabled stream hooks).
	Stream []string `json:"stream,omitempty"`
}

// Summarize is a compaction request.
type Summarize struct {
	Keep int `json:"keep"`
	// Attempts bounds the summary call's own failures, as ToolInput's does
	// a tool call's; 0 means DefaultAttempts.
	Attempts int32 `json:"attempts,omitempty"`
}

// ModelInput is the input of ModelActivity: a reference and a configuration,
// never the conversation. Its size does not grow with the conversation.
// Journal carries session events recorded since the previous command, in
// their history form (see eventlog.Strip).
//
// Under loop.RulesCallFromHeader a model call (not a summary) carries no
// Call but its Stream hooks, and the zero Call is left out: its turn and
// step are its activity ID's (ModelActivityID) and the rest is the
// request/header its log prefix recorded last, in its own run, which the
// activity reads with the conversation (CallConfig.FromHeader). Calls
// recorded before name all of it, and always a turn.
type ModelInput struct {
	Ref     LogRef     `json:"ref"`
	Call    CallConfig `json:"call,omitzero"`
	Journal Journal    `json:"journal,omitzero"`
}

// Named reports whether c names any of what a request/header records.
func (c CallConfig) Named() bool {
	return c.Provider != "" || c.Model != "" || c.Effort != "" || c.MaxTokens != 0 || len(c.Tools) > 0
}

// FromHeader is c with what a request/header records taken from h.
func (c CallConfig) FromHeader(h eventlog.RequestHeader) CallConfig {
	c.Provider, c.Model, c.Effort, c.MaxTokens, c.Tools = h.Provider, h.Model, h.Effort, h.MaxTokens, h.Tools
	return c
}

// ModelOutput is the result of ModelActivity; it is the assistant/message event.
type ModelOutput = eventlog.AssistantMessage

// ToolInput is the input of ToolActivity. The call's arguments travel in it
// when they are small (MaxInlineArguments) or the call runs as a local
// activity; larger ones are read from the log (the assistant message at
// AssistantSeq), not copied here.
//
// Its call_id, name and idempotency_key are the tool/call event's fields:
// the journal refers to this input for that event instead of repeating them.
type ToolInput struct {
	// AssistantSeq is the seq of the assistant/message that asked for the
	// call, in the activity's own workflow's log, where the activity reads
	// the arguments that do not travel inline (0 when they do).
	AssistantSeq int64  `json:"assistant_seq,omitempty"`
	CallID       string `json:"call_id"`
	Name         string `json:"name"`
	// IdempotencyKey is stable across retries, worker crashes and
	// Continue-As-New: agent/turn/step/call.
	IdempotencyKey string  `json:"idempotency_key"`
	Journal        Journal `json:"journal,omitzero"`
	// Attempts is how many times the tool's own failures (its errors, its
	// time limit) may end an attempt before the call fails for good; 0
	// means DefaultAttempts. Attempts lost to faults (a worker that died, a
	// server it lost) never count: see ToolFailure.
	Attempts int32 `json:"attempts,omitempty"`
	// Arguments are the call's arguments when they travel inline: always
	// for a local activity (whose input Temporal does not write to
	// history), up to MaxInlineArguments bytes for a regular one. Absent,
	// the activity reads them from the log.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// MCP, when set, is the MCP server tool the call runs (Name is the
	// model's name for it, MCPToolName).
	MCP *MCPGrant `json:"mcp,omitempty"`
}

// ToolProgress is the latest progress of a running tool call (an MCP
// server's progress notification, a tool's own report), as the heartbeat
// details of its attempt carry it under "progress": what an operator's
// client reads from DescribeWorkflowExecution's pending activities.
// Attempt says which attempt reported it: details outlive their attempt
// (Temporal hands them to the next one), so a reader shows only those of
// the attempt running. The worker bounds it: Message is one line of at
// most 160 bytes, the numbers are finite, Total is zero when unknown.
type ToolProgress struct {
	Tool     string  `json:"tool"`
	Attempt  int32   `json:"attempt"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// MaxInlineArguments bounds the tool arguments a regular tool activity's
// input carries. Arguments that small cost a few bytes of history, far
// less than the activity's round trip to read them from the log; larger
// ones are read from the log, so history holds them once.
const MaxInlineArguments = 1 << 10

// ToolOutput is the result of ToolActivity; it is the tool/result event.
type ToolOutput = eventlog.ToolResult

// Faults are not failures. Temporal retries the model and tool activities
// without an attempt limit (up to an overall deadline), so an attempt lost
// to a fault, a worker that died or lost the server and so stopped
// heartbeating, is simply run again. Only a call's own failures count: the
// activity counts them itself (the count rides in its heartbeat details,
// which Temporal hands to the next attempt) and ends the call with a
// non-retryable ToolFailure once they reach its Attempts.
const (
	// ToolFailure is the ApplicationError type of a tool call's own
	// failure: retryable until the call's attempts are used up, then
	// non-retryable, and the workflow gives its message to the model.
	ToolFailure = "tether.ToolFailure"
	// DefaultAttempts is the attempt budget of a call whose input names none.
	DefaultAttempts = 3
	// ActivityGrace is what a model or tool activity attempt's StartToClose
	// timeout adds to the call's own time limit. The activity stops its work
	// at the limit and reports that as the call's own failure (a timeout it
	// can count); Temporal's timeout fires only for an attempt that could
	// not report, a wedged worker, which is a fault and runs again.
	ActivityGrace = 5 * time.Second
)

// StreamLocator is the heartbeat detail of a streaming model activity: where
// the worker running it serves the attempt's live chunks, and the token that
// reads them. Clients find it with DescribeWorkflowExecution (pending
// activities), so only those who may read the workflow may follow the call.
//
// It is not written to history while the attempt runs or when it ends.
// Temporal copies an attempt's last heartbeat details into history in one
// case only: an attempt that times out for good (its worker died, hung or
// lost the server). The token then opens at most what is left of that one stream,
// which its worker drops Linger after the call ends, to a reader of the
// history, who may read the workflow anyway.
//
// Its printed and logged forms (any fmt verb, any slog handler) leave the
// token out; only its JSON, which the heartbeat needs, carries it.
type StreamLocator struct {
	URL     string `json:"url"`
	Token   string `json:"token"`
	Attempt int32  `json:"attempt"`
}

// Format prints the locator without its token, whatever the verb.
func (l StreamLocator) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "{URL:%s Token:%s Attempt:%d}", l.URL, redacted(l.Token), l.Attempt)
}

// LogValue logs the locator without its token, with any slog handler.
func (l StreamLocator) LogValue() slog.Value {
	return slog.GroupValue(slog.String("url", l.URL), slog.String("token", redacted(l.Token)),
		slog.Int("attempt", int(l.Attempt)))
}

func redacted(secret string) string {
	if secret == "" {
		return ""
	}
	return "[redacted]"
}
