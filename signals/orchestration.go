package signals

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tetherdev/tether/eventlog"
)

// Child agents, people in the loop and durable waits: their messages,
// payloads and policies.

// Messages a child and its parent exchange, and the updates people use.
var (
	// ChildReportSignal is how a child tells its parent about each settled
	// turn, and that it ended.
	ChildReportSignal = Signal[ChildReport]{Name: "child-report"}
	// SpawnUpdate asks an agent to start a detached child.
	SpawnUpdate = Update[Spawn, Spawned]{Name: "spawn"}
	// ApproveUpdate approves a tool call that waits for approval.
	ApproveUpdate = Update[Decision, Decided]{Name: "approve"}
	// DenyUpdate denies it; the model sees the reason.
	DenyUpdate = Update[Decision, Decided]{Name: "deny"}
	// AnswerUpdate answers an ask_human question.
	AnswerUpdate = Update[Decision, Decided]{Name: "answer"}
)

// ParentLink is a child's parent, from its start input.
type ParentLink struct {
	ID string `json:"id"`
	// Depth is the child's depth in the tree: 1 for a root's child.
	Depth int `json:"depth"`
}

// ChildReport is a child's report of its settled turn (a retry chain's
// terminal turn), or of its end when Ended is set.
type ChildReport struct {
	// ID is the report's message ID in the parent's inbox (ChildReportID).
	ID     eventlog.MessageID `json:"id"`
	Child  string             `json:"child"`
	Turn   int                `json:"turn,omitempty"`
	Reason eventlog.EndReason `json:"reason,omitempty"`
	Error  string             `json:"error,omitempty"`
	// Text is the turn's final assistant text.
	Text string `json:"text,omitempty"`
	// Spent is everything the child spent so far, its own children's
	// spending included.
	Spent eventlog.Usage `json:"spent,omitzero"`
	// Ended, when set, says the child's workflow is ending, and how.
	Ended string `json:"ended,omitempty"`
}

// SpawnArgs are spawn_agent's arguments, as the model writes them.
type SpawnArgs struct {
	// Task is the child's first message.
	Task string `json:"task"`
	// SystemPrompt or Profile (a worker-registered profile) shape the child.
	SystemPrompt string `json:"system_prompt,omitempty"`
	Profile      string `json:"profile,omitempty"`
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	// Tools the child may use: never more than the parent's. Omitted (nil)
	// means the parent's, or the profile's; an empty list means none.
	Tools []string `json:"tools,omitzero"`
	// Budget is the share (0 to 1] of the parent's remaining budget the
	// child may spend; 0 means DefaultBudgetShare.
	Budget float64 `json:"budget,omitempty"`
	// Mode is "wait" (the call answers with the child's first settled
	// answer, the default) or "detach" (it answers at once; each settled
	// turn arrives in the parent's inbox on List, next-turn by default).
	Mode eventlog.ChildMode `json:"mode,omitempty"`
	List eventlog.List      `json:"list,omitempty"`
}

// DefaultBudgetShare is a child's share of its parent's remaining budget
// when the spawn names none.
const DefaultBudgetShare = 0.5

// MaxChildDepth bounds the depth of a tree of agents.
const MaxChildDepth = 4

// Spawn is the argument of SpawnUpdate: a detached child (from a client
// or a hook), whose reports arrive on List.
type Spawn struct {
	SpawnArgs
	// ID makes a retried spawn idempotent within the agent's dedupe window.
	ID eventlog.MessageID `json:"id"`
}

// Spawned answers SpawnUpdate.
type Spawned struct {
	ChildID string `json:"child_id"`
}

// Decision approves, denies or answers a tool call that waits for a
// person. ID names the decision (a retried update with the same ID is the
// same decision); Text is the reason, or the answer.
type Decision struct {
	ID      eventlog.MessageID `json:"id"`
	CallID  string             `json:"call_id"`
	Decider string             `json:"decider,omitempty"`
	Text    string             `json:"text,omitempty"`
	// Args, on an approval, are the call's arguments as the person edited
	// them: a JSON object the tool's schema accepts, at most
	// MaxDecisionBytes. The call runs with them, and the model sees its call
	// as made (with them); the log keeps the original too. An approval
	// policy may forbid edits for a tool (ApprovalPolicy.NoEdit).
	Args eventlog.JSON `json:"args,omitempty"`
}

// Decided answers the decision updates.
type Decided struct {
	CallID string `json:"call_id"`
	Seq    int64  `json:"seq"` // position of its decision/made event
}

// ApprovalPolicy says which tool calls wait for a person's approval, and
// how long questions and approvals may wait.
type ApprovalPolicy struct {
	// Tools need approval for every call.
	Tools []string `json:"tools,omitempty"`
	// When lists rules on a call's arguments: a call of Tool whose
	// argument at Path equals Equals (any value when Equals is empty)
	// needs approval.
	When []ApprovalRule `json:"when,omitempty"`
	// Timeout decides a pending approval by OnTimeout ("deny", the
	// default, or "approve"); zero waits for as long as it takes.
	Timeout   time.Duration `json:"timeout,omitempty"`
	OnTimeout string        `json:"on_timeout,omitempty"`
	// AnswerTimeout ends an ask_human question unanswered; zero waits.
	AnswerTimeout time.Duration `json:"answer_timeout,omitempty"`
	// NoEdit names the tools (as Tools does; "*" for every tool) whose
	// calls may be approved only as the model made them. Any other call
	// waiting for approval may be approved with edited arguments
	// (Decision.Args): whoever may approve a call decides already whether
	// it runs at all, the edit passes the tool's schema as the model's call
	// would, and the log records who edited it and what the model had
	// asked.
	NoEdit []string `json:"no_edit,omitempty"`
}

// EditsAllowed reports whether the policy lets a person edit a call of
// tool before approving it; server is the MCP server behind an MCP tool
// ("" for others), mcpTool its name there.
func (p *ApprovalPolicy) EditsAllowed(tool, server, mcpTool string) bool {
	if p == nil {
		return true
	}
	for _, t := range p.NoEdit {
		if t == "*" || t == tool {
			return false
		}
		if g, ok := ParseMCPGrant(t); ok && server != "" && g.Server == server && (g.Tool == "" || g.Tool == mcpTool) {
			return false
		}
	}
	return true
}

// ApprovalRule matches a call by tool and, optionally, by one argument.
// Path is a JSON path of object keys from the arguments' root: "$.to" or
// "$.recipient.domain".
type ApprovalRule struct {
	Tool   string          `json:"tool"`
	Path   string          `json:"path,omitempty"`
	Equals json.RawMessage `json:"equals,omitempty"`
}

// WaitPolicy bounds the wait tool.
type WaitPolicy struct {
	// Max bounds one wait; zero means DefaultMaxWait.
	Max time.Duration `json:"max,omitempty"`
	// Interruptible lets a followup or a steer end a wait early.
	Interruptible bool `json:"interruptible,omitempty"`
}

// DefaultMaxWait bounds a wait when the agent's policy says nothing.
const DefaultMaxWait = 24 * time.Hour

// WaitArgs are the wait tool's arguments: a duration in seconds, or a
// time (RFC 3339).
type WaitArgs struct {
	Seconds float64 `json:"seconds,omitempty"`
	Until   string  `json:"until,omitempty"`
}

// AskArgs are ask_human's arguments.
type AskArgs struct {
	Question string `json:"question"`
}

// MaxDecisionBytes bounds a decision's reason or answer.
const MaxDecisionBytes = 64 << 10

// ValidateDecision checks a decision before it is accepted.
func ValidateDecision(d Decision) error {
	if err := ValidateID(d.ID); err != nil {
		return err
	}
	switch {
	case d.CallID == "" || len(d.CallID) > MaxIDBytes:
		return fmt.Errorf("%w: call %q", ErrNoSuchDecision, d.CallID)
	case len(d.Text) > MaxDecisionBytes || len(d.Decider) > MaxIDBytes:
		return fmt.Errorf("%w: decision text %d bytes, limit %d", ErrMessageTooLarge, len(d.Text), MaxDecisionBytes)
	case !utf8.ValidString(d.Text) || !utf8.ValidString(d.Decider):
		return ErrInvalidUTF8
	}
	return validateEdit(string(d.Args))
}

// validateEdit checks an approval's edited arguments, when it has them:
// one JSON object within MaxDecisionBytes.
func validateEdit(args string) error {
	if args == "" {
		return nil
	}
	if len(args) > MaxDecisionBytes {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrInvalidEdit, len(args), MaxDecisionBytes)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &obj); err != nil || obj == nil {
		return fmt.Errorf("%w: arguments must be one JSON object, got %.80q", ErrInvalidEdit, args)
	}
	return nil
}

// ValidateSpawnArgs checks a spawn's arguments against the tools the
// parent may use.
func ValidateSpawnArgs(a SpawnArgs, parentTools []string) error {
	if err := ValidateContent(a.Task); err != nil {
		return fmt.Errorf("%w: task: %w", ErrInvalidSpawn, err)
	}
	switch {
	case a.Budget < 0 || a.Budget > 1:
		return fmt.Errorf("%w: budget share %v is not in (0, 1]", ErrInvalidSpawn, a.Budget)
	case a.Mode != "" && a.Mode != eventlog.ChildWait && a.Mode != eventlog.ChildDetach:
		return fmt.Errorf("%w: mode %q is not wait or detach", ErrInvalidSpawn, a.Mode)
	case a.List != "" && !a.List.Valid():
		return fmt.Errorf("%w: list %q", ErrInvalidSpawn, a.List)
	case len(a.SystemPrompt) > MaxMessageBytes:
		return fmt.Errorf("%w: system prompt of %d bytes", ErrInvalidSpawn, len(a.SystemPrompt))
	}
	for _, t := range a.Tools {
		if !grants(parentTools, t) {
			return fmt.Errorf("%w: tool %q is not one the parent may use (%s)", ErrInvalidSpawn, t, strings.Join(parentTools, ", "))
		}
	}
	return nil
}

// Profile is a named kind of child agent a worker offers spawn_agent: its
// options (system prompt, tools, provider, model) and, optionally, another
// task queue to run on. A child never gets tools its parent may not use.
type Profile struct {
	Options   AgentOptions `json:"options"`
	TaskQueue string       `json:"task_queue,omitempty"`
}
