package eventlog

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Initiator says who put a message into the inbox (seed 000/003's
// withInitiator). The zero value is a user: a client of the agent.
type Initiator struct {
	Kind InitiatorKind `json:"kind,omitempty"`
	// ID names the agent (parent or child) that sent it, if any.
	ID string `json:"id,omitempty"`
}

// InitiatorKind is the kind of an Initiator.
type InitiatorKind string

const (
	ByUser   InitiatorKind = ""       // a client: the Go client, the starter, the console
	ByParent InitiatorKind = "parent" // the agent that spawned this one
	ByChild  InitiatorKind = "child"  // a child reporting a settled turn
	ByHook   InitiatorKind = "hook"   // a hook of this agent (steering, additions)
)

// ChildMode says how a parent receives a child's results.
type ChildMode string

const (
	// ChildWait: the spawning tool call completes with the child's first
	// settled answer.
	ChildWait ChildMode = "wait"
	// ChildDetach: the call answers with the child's ID at once; every
	// settled turn of the child arrives in the parent's inbox.
	ChildDetach ChildMode = "detach"
)

// ChildBudget is the share of the parent's budget a child may spend.
type ChildBudget struct {
	MaxTokens int64   `json:"max_tokens,omitempty"`
	MaxCost   float64 `json:"max_cost,omitempty"`
}

// ChildStarted records that the agent started a child agent (a child
// workflow). CallID is the spawn_agent call it answers, if any; List is
// where a detached child's reports go.
type ChildStarted struct {
	ChildID string      `json:"child_id"`
	CallID  string      `json:"call_id,omitempty"`
	Mode    ChildMode   `json:"mode"`
	List    List        `json:"list,omitempty"`
	Budget  ChildBudget `json:"budget,omitzero"`
}

// ChildSettled records a child's settled turn as its report arrived: how
// it ended, and the tokens it spent since its last report (they count
// against this agent's budget). The answer's text, when there is one, is
// in the report's payload (its Ref).
type ChildSettled struct {
	ChildID string    `json:"child_id"`
	Turn    int       `json:"turn"`
	Reason  EndReason `json:"reason"`
	Error   string    `json:"error,omitempty"`
	Text    string    `json:"text,omitempty"`
	Usage   Usage     `json:"usage,omitzero"`
}

// ChildEnded records that a child's workflow closed (disposed, failed,
// terminated, or unreachable); nothing waits on it any more. Usage is what
// it spent that no ChildSettled counted (its end said so before the report
// of its last turn arrived); it counts against this agent's budget too.
type ChildEnded struct {
	ChildID string `json:"child_id"`
	Status  string `json:"status"`
	Usage   Usage  `json:"usage,omitzero"`
}

// DecisionKind is what a person is asked.
type DecisionKind string

const (
	NeedApproval DecisionKind = "approval" // approve or deny a tool call
	NeedAnswer   DecisionKind = "answer"   // answer an ask_human question
)

// DecisionRequested records that a tool call waits for a person: an
// approval of the call, or the answer to its question. Deadline, when set,
// decides by policy.
type DecisionRequested struct {
	CallID   string       `json:"call_id"`
	Name     string       `json:"name"`
	Kind     DecisionKind `json:"kind"`
	Since    time.Time    `json:"since"`
	Deadline time.Time    `json:"deadline,omitzero"`
}

// DecisionMade records the decision: who made it, approval or not, and the
// reason or answer (Text, from the decision's payload, its Ref). A
// decision the policy made on its deadline has Decider "timeout".
//
// Args, on an approval, are the arguments the decider edited the call to,
// and Original what the model had asked (its assistant/message keeps them
// too): from here on the open call, and the conversation's assistant
// message that made it, carry Args; the call runs with them.
type DecisionMade struct {
	CallID   string `json:"call_id"`
	Approved bool   `json:"approved"`
	Decider  string `json:"decider,omitempty"`
	Text     string `json:"text,omitempty"`
	Args     JSON   `json:"args,omitempty"`
	Original JSON   `json:"original,omitempty"`
}

// JSON is a JSON value kept as it was sent, held in a string so that an
// event holding one stays comparable; empty means none.
type JSON string

// MarshalJSON writes the value as it was sent (null when empty).
func (j JSON) MarshalJSON() ([]byte, error) {
	if j == "" {
		return []byte("null"), nil
	}
	if !json.Valid([]byte(j)) {
		return nil, fmt.Errorf("eventlog.JSON: not JSON: %.80q", string(j))
	}
	return []byte(j), nil
}

// UnmarshalJSON keeps the value as it was sent.
func (j *JSON) UnmarshalJSON(b []byte) error {
	*j = JSON(b)
	return nil
}

// WaitStarted records a wait tool call sleeping until Until on a durable
// timer.
type WaitStarted struct {
	CallID string    `json:"call_id"`
	Until  time.Time `json:"until"`
}

// Child is a child agent as its parent's state holds it.
type Child struct {
	ID     string      `json:"id"`
	CallID string      `json:"call_id,omitempty"` // the open spawn call waiting for it
	Mode   ChildMode   `json:"mode"`
	List   List        `json:"list,omitempty"`
	Budget ChildBudget `json:"budget,omitzero"`
	// Spent is what its reports counted so far.
	Spent Usage `json:"spent,omitzero"`
	// Settled counts its settled turns.
	Settled int `json:"settled,omitempty"`
}

// PendingDecision is a tool call waiting for a person.
type PendingDecision struct {
	CallID   string       `json:"call_id"`
	Name     string       `json:"name"`
	Kind     DecisionKind `json:"kind"`
	Since    time.Time    `json:"since"`
	Deadline time.Time    `json:"deadline,omitzero"`
}

// Wait is a wait tool call sleeping.
type Wait struct {
	CallID string    `json:"call_id"`
	Until  time.Time `json:"until"`
}

func (ChildStarted) Type() Type      { return TypeChildStarted }
func (ChildSettled) Type() Type      { return TypeChildSettled }
func (ChildEnded) Type() Type        { return TypeChildEnded }
func (DecisionRequested) Type() Type { return TypeDecisionRequested }
func (DecisionMade) Type() Type      { return TypeDecisionMade }
func (WaitStarted) Type() Type       { return TypeWaitStarted }

func (ChildStarted) isEvent()      {}
func (ChildSettled) isEvent()      {}
func (ChildEnded) isEvent()        {}
func (DecisionRequested) isEvent() {}
func (DecisionMade) isEvent()      {}
func (WaitStarted) isEvent()       {}

// applyOrchestration folds the orchestration events.
func (s *State) applyOrchestration(e Event) error {
	switch e := e.(type) {
	case ChildStarted:
		if s.child(e.ChildID) >= 0 {
			return fmt.Errorf("child %q already started", e.ChildID)
		}
		s.Children = append(slices.Clip(s.Children), Child{ID: e.ChildID, CallID: e.CallID, Mode: e.Mode, List: e.List, Budget: e.Budget})
	case ChildSettled:
		i := s.child(e.ChildID)
		if i < 0 {
			return fmt.Errorf("child %q is not running", e.ChildID)
		}
		s.Children = slices.Clone(s.Children)
		c := &s.Children[i]
		c.Settled++
		c.Spent = c.Spent.Add(e.Usage)
		if c.Mode == ChildWait {
			c.CallID = "" // answered: nothing waits on it any more
		}
		s.Usage = s.Usage.Add(e.Usage)
	case ChildEnded:
		i := s.child(e.ChildID)
		if i < 0 {
			return fmt.Errorf("child %q is not running", e.ChildID)
		}
		s.Children = slices.Delete(slices.Clone(s.Children), i, i+1)
		s.Usage = s.Usage.Add(e.Usage)
	case DecisionRequested:
		if !slices.ContainsFunc(s.OpenCalls, func(c ToolCallRequest) bool { return c.ID == e.CallID }) || s.pending(e.CallID) >= 0 {
			return fmt.Errorf("call %q is not open or already waits for a decision", e.CallID)
		}
		s.Pending = append(slices.Clip(s.Pending), PendingDecision(e))
	case DecisionMade:
		i := s.pending(e.CallID)
		if i < 0 {
			return fmt.Errorf("call %q waits for no decision", e.CallID)
		}
		s.Pending = slices.Delete(slices.Clone(s.Pending), i, i+1)
		if e.Args != "" {
			if !e.Approved {
				return fmt.Errorf("call %q: only an approval edits arguments", e.CallID)
			}
			s.OpenCalls = editCall(s.OpenCalls, e.CallID, json.RawMessage(e.Args))
		}
	case WaitStarted:
		if !slices.ContainsFunc(s.OpenCalls, func(c ToolCallRequest) bool { return c.ID == e.CallID }) {
			return fmt.Errorf("wait for call %q that is not open", e.CallID)
		}
		s.Waits = append(slices.Clip(s.Waits), Wait(e))
	}
	return nil
}

func (s *State) child(id string) int {
	return slices.IndexFunc(s.Children, func(c Child) bool { return c.ID == id })
}

func (s *State) pending(callID string) int {
	return slices.IndexFunc(s.Pending, func(p PendingDecision) bool { return p.CallID == callID })
}

// settleCall drops what waited on a call once it has its result.
func (s *State) settleCall(callID string) {
	if i := s.pending(callID); i >= 0 {
		s.Pending = slices.Delete(slices.Clone(s.Pending), i, i+1)
	}
	if i := slices.IndexFunc(s.Waits, func(w Wait) bool { return w.CallID == callID }); i >= 0 {
		s.Waits = slices.Delete(slices.Clone(s.Waits), i, i+1)
	}
}

// Add sums two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens,
		CachedTokens: u.CachedTokens + v.CachedTokens, CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens}
}

// editCall is calls with callID's arguments replaced by args, copied so
// that a state or message shared with an earlier fold keeps its own.
func editCall(calls []ToolCallRequest, callID string, args json.RawMessage) []ToolCallRequest {
	i := slices.IndexFunc(calls, func(c ToolCallRequest) bool { return c.ID == callID })
	if i < 0 {
		return calls
	}
	calls = slices.Clone(calls)
	calls[i].Arguments = args
	return calls
}
