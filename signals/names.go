package signals

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/eventlog"
)

// Durable names. They are written to Temporal history and visibility, so a
// value is never renamed; renaming a Go identifier renames nothing.
const (
	// TaskQueue is the default task queue of agent workflows and activities.
	TaskQueue = "tether"

	// AgentWorkflow is the workflow type of every agent. Workflow ID = agent ID.
	AgentWorkflow = "tether.Agent"

	// ModelActivity makes one model request.
	ModelActivity = "tether.Model"
	// ToolActivity runs one tool call.
	ToolActivity = "tether.Tool"
)

// The loop's own tools: an agent enables them by name like any tool, but
// the loop runs them itself instead of a tool activity.
const (
	// SpawnTool starts a child agent (signals.SpawnArgs).
	SpawnTool = "spawn_agent"
	// AskHumanTool asks a person a question; the answer is the result.
	AskHumanTool = "ask_human"
	// WaitTool sleeps on a durable timer (signals.WaitArgs).
	WaitTool = "wait"
)

// LoopTools lists the loop's own tools.
var LoopTools = []string{SpawnTool, AskHumanTool, WaitTool}

// Search attributes an operator filters agents by in the Temporal UI.
const (
	AttrStatus = "TetherStatus" // Keyword: idle | running
	AttrModel  = "TetherModel"  // Keyword: provider/model of the agent
	AttrParent = "TetherParent" // Keyword: parent agent ID, empty for a root agent
	AttrTurn   = "TetherTurn"   // Int: the last opened turn
	// AttrWaiting is what the agent waits for: "approval" (a tool call
	// waits for a person's approval), "answer" (an ask_human question), or
	// "wait" (a wait tool sleeps); empty when it waits for nothing.
	AttrWaiting   = "TetherWaiting"   // Keyword
	AttrWaitUntil = "TetherWaitUntil" // Datetime: when the earliest wait ends
	// AttrForkOf is the agent a forked agent was forked from (agent.Fork);
	// unset for an agent that was not forked.
	AttrForkOf = "TetherForkOf" // Keyword
)

// SearchAttributeKinds lists Tether's custom search attributes with their
// indexed types as Temporal names them; namespaces must register them.
var SearchAttributeKinds = map[string]string{
	AttrStatus:    "Keyword",
	AttrModel:     "Keyword",
	AttrParent:    "Keyword",
	AttrTurn:      "Int",
	AttrWaiting:   "Keyword",
	AttrWaitUntil: "Datetime",
	AttrForkOf:    "Keyword",
}

// Durable ID formats. Activity IDs are written to history and named by the
// session log's references (eventlog.ActivityRef), so projection, the
// client and the loop all build and read them here; a format never
// changes. Turns and steps number from 1 and continue across
// Continue-As-New, so these IDs are unique within an agent's whole chain.

// ModelActivityID is the ID of the model call of step turn.step:
// "model-<turn>-<step>".
func ModelActivityID(turn, step int) string {
	return "model-" + strconv.Itoa(turn) + "-" + strconv.Itoa(step)
}

// ParseModelActivityID reads turn and step from a ModelActivityID.
func ParseModelActivityID(id string) (turn, step int, ok bool) {
	rest, found := strings.CutPrefix(id, "model-")
	if !found {
		return 0, 0, false
	}
	t, s, found := strings.Cut(rest, "-")
	turn, err1 := strconv.Atoi(t)
	step, err2 := strconv.Atoi(s)
	if !found || err1 != nil || err2 != nil || turn < 1 || step < 1 {
		return 0, 0, false
	}
	return turn, step, true
}

// ToolActivityID is the ID of the tool call at index (model order, from 0)
// of step turn.step: "tool-<turn>-<step>-<index>".
func ToolActivityID(turn, step, index int) string {
	return "tool-" + strconv.Itoa(turn) + "-" + strconv.Itoa(step) + "-" + strconv.Itoa(index)
}

// SummaryActivityID is the ID of the compaction summary made when the log
// had seq events: "compact-<seq>". The log position is unique across the
// chain, so every summary has its own ID.
func SummaryActivityID(seq int64) string { return "compact-" + strconv.FormatInt(seq, 10) }

// IdempotencyKey is the key a tool call carries, stable across retries,
// worker crashes and Continue-As-New: "<agent>/<turn>/<step>/<call ID>".
func IdempotencyKey(agentID string, turn, step int, callID string) string {
	return agentID + "/" + strconv.Itoa(turn) + "/" + strconv.Itoa(step) + "/" + callID
}

// MadePrefix starts the ID of every message a hook made (steering from
// turn-stopping, additions by pre-step). Such a message arrived in no
// payload, so its content is journaled inline. Clients may not use it.
const MadePrefix = "made:"

// MadeMessageID is the ID of the n-th message made by hooks in the agent's
// life, made during turn: "made:<turn>.<n>".
func MadeMessageID(turn, n int) eventlog.MessageID {
	return eventlog.MessageID(MadePrefix + strconv.Itoa(turn) + "." + strconv.Itoa(n))
}

// IsMade reports whether id was made by a hook (see MadeMessageID).
func IsMade(id eventlog.MessageID) bool { return strings.HasPrefix(string(id), MadePrefix) }

// ModelLabel is the provider/model label of a selection, as the TetherModel
// search attribute shows it ("default" for an empty part).
func ModelLabel(s Selection) string {
	p, m := s.Provider, s.Model
	if p == "" {
		p = "default"
	}
	if m == "" {
		m = "default"
	}
	return p + "/" + m
}

// ChildAgentID is the agent ID of a child started when its parent's log
// had seq events: "<parent>.child-<seq>". The seq is unique across the
// parent's chain, so children never collide, and the ID says whose child
// it is.
func ChildAgentID(parent string, seq int64) string {
	return parent + ".child-" + strconv.FormatInt(seq, 10)
}

// ChildReportID is the message ID of a child's report of its settled turn
// in its parent's inbox: "<child>#<turn>".
func ChildReportID(child string, turn int) eventlog.MessageID {
	return eventlog.MessageID(child + "#" + strconv.Itoa(turn))
}

// MessageUpdateID is the update ID a client gives an acknowledged message
// (followup, steer, inject, send): "<message ID>#<16 hex digits>", the
// first 8 bytes of the SHA-256 of its content. Temporal answers a repeated
// update ID from the run that took it, so a resend of the same message
// gets the first delivery's answer, while other content under a used
// message ID is a new update, which the agent refuses (ErrReusedID).
func MessageUpdateID(id eventlog.MessageID, content string) string {
	sum := sha256.Sum256([]byte(content))
	return string(id) + "#" + hex.EncodeToString(sum[:8])
}

// Timer IDs of the loop's durable timers within one turn.
const (
	BackoffTimer = "backoff" // before a retry turn
)

// DecideTimer is the deadline of a tool call's pending decision.
func DecideTimer(callID string) string { return "decide:" + callID }

// WaitTimer is a wait tool call's sleep.
func WaitTimer(callID string) string { return "wait:" + callID }

// ScheduleTimer delivers scheduled message id into the inbox at its time:
// "schedule:<message ID>". Unlike the timers above it is not a turn's: it
// runs across turns, and a restored run starts it again from its seed.
func ScheduleTimer(id eventlog.MessageID) string { return schedulePrefix + string(id) }

// ParseScheduleTimer reads the message ID of a ScheduleTimer.
func ParseScheduleTimer(timerID string) (eventlog.MessageID, bool) {
	id, ok := strings.CutPrefix(timerID, schedulePrefix)
	return eventlog.MessageID(id), ok && id != ""
}

const schedulePrefix = "schedule:"
