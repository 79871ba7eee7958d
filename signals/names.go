package signals

import (
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

// Search attributes an operator filters agents by in the Temporal UI.
const (
	AttrStatus = "TetherStatus" // Keyword: idle | running
	AttrModel  = "TetherModel"  // Keyword: provider/model of the agent
	AttrParent = "TetherParent" // Keyword: parent agent ID, empty for a root agent
	AttrTurn   = "TetherTurn"   // Int: the last opened turn
)

// SearchAttributeKinds lists Tether's custom search attributes with their
// indexed types as Temporal names them; namespaces must register them.
var SearchAttributeKinds = map[string]string{
	AttrStatus: "Keyword",
	AttrModel:  "Keyword",
	AttrParent: "Keyword",
	AttrTurn:   "Int",
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
