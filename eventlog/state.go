package eventlog

import (
	"errors"
	"fmt"
	"slices"
)

// Pending is a message waiting in one of the inbox lists. It is not the
// client's signals.Message, though it shares its ID, content and their
// keys: it also holds Wake, kept from the message's route so the inbox can
// tell due work (Inbox.Due, Inbox.Steering) later, and it is the inbox's
// persisted form (status views, Continue-As-New seeds), whose keys never
// change. eventlog cannot name signals' type, which imports eventlog.
type Pending struct {
	ID      MessageID `json:"id"`
	Content string    `json:"content"`
	Wake    bool      `json:"wake"`
}

// Inbox is the agent's two ordered lists of pending messages.
type Inbox struct {
	NextTurn []Pending `json:"next_turn,omitempty"`
	NextStep []Pending `json:"next_step,omitempty"`
}

func (in *Inbox) list(l List) *[]Pending {
	if l == NextTurn {
		return &in.NextTurn
	}
	return &in.NextStep
}

// Find returns the pending message id and its list.
func (in Inbox) Find(id MessageID) (Pending, List, bool) {
	for _, l := range []List{NextTurn, NextStep} {
		for _, p := range *in.list(l) {
			if p.ID == id {
				return p, l, true
			}
		}
	}
	return Pending{}, "", false
}

// Steering reports whether a next-step message wakes the loop (steer, or a
// send with wake); injected messages alone do not.
func (in Inbox) Steering() bool {
	for _, p := range in.NextStep {
		if p.Wake {
			return true
		}
	}
	return false
}

// Due reports whether pending work would open a turn: a followup, or
// steering.
//
// Deprecated: nothing in Tether calls it (the loop decides what is due
// itself: loop.Loop.Due); it stays because the v0.1.0 API baseline (api/)
// holds it, and goes with the next incompatible version.
func (in Inbox) Due() bool { return len(in.NextTurn) > 0 || in.Steering() }

// Len is the number of pending messages in both lists.
func (in Inbox) Len() int { return len(in.NextTurn) + len(in.NextStep) }

func (in *Inbox) remove(l List, id MessageID) bool {
	lst := in.list(l)
	i := slices.IndexFunc(*lst, func(p Pending) bool { return p.ID == id })
	if i < 0 {
		return false
	}
	*lst = slices.Delete(slices.Clone(*lst), i, i+1)
	return true
}

// State is the loop's state as a pure fold of its session log: inbox, status,
// turn and step counters, the last recorded system prompt and the open tool
// calls. Apply is the only way it changes.
type State struct {
	Len            int64  `json:"len"` // events applied; the next event's Seq
	Status         Status `json:"status"`
	Turn           int    `json:"turn"` // the last opened turn
	InTurn         bool   `json:"in_turn"`
	Step           int    `json:"step"` // the last opened step of Turn
	InStep         bool   `json:"in_step"`
	Inbox          Inbox  `json:"inbox"`
	SystemPrompt   string `json:"system_prompt,omitempty"`
	RuntimeContext string `json:"runtime_context,omitempty"`
	// OpenCalls are the tool calls of the last assistant message that have no
	// result yet, in the model's order.
	OpenCalls []ToolCallRequest `json:"open_calls,omitempty"`
	// Usage sums the tokens of every model call in the log.
	Usage Usage `json:"usage"`
	// Selection is the model selection steps start from (model/selected).
	Selection Selection `json:"selection,omitzero"`
	// Canceling is the cause of the open turn's cancel (turn/canceling);
	// empty when the turn is not being canceled.
	Canceling string `json:"canceling,omitempty"`
	// Disposing is set once the agent was told to end (agent/disposing).
	Disposing    bool   `json:"disposing,omitempty"`
	DisposeCause string `json:"dispose_cause,omitempty"`
	// Maintenance lists the queued maintenance tasks, oldest first.
	Maintenance []string `json:"maintenance,omitempty"`
	// RetryChain counts the retry turns since the chain's first turn.
	RetryChain int `json:"retry_chain,omitempty"`
	// Header is the last recorded request header.
	Header *RequestHeader `json:"header,omitempty"`
	// Children are the child agents this agent started that have not ended.
	Children []Child `json:"children,omitempty"`
	// Pending are tool calls waiting for a person; Waits wait tool calls
	// sleeping.
	Pending []PendingDecision `json:"pending,omitempty"`
	Waits   []Wait            `json:"waits,omitempty"`
	// Scheduled are messages waiting for their time to enter the inbox,
	// in the order they were scheduled (MessageScheduled).
	Scheduled []Scheduled `json:"scheduled,omitempty"`
	// SessionStarted is set once the session-start hooks ran
	// (session/started); a seed carries it across Continue-As-New.
	SessionStarted bool `json:"session_started,omitempty"`
}

// NewState returns the state of an empty log starting at position start.
func NewState(start int64) State { return State{Len: start, Status: StatusIdle} }

// Apply folds e into s. It performs no I/O and reads no clock.
func (s *State) Apply(e Event) error {
	if err := s.apply(e); err != nil {
		return fmt.Errorf("%w: %s at seq %d: %w", ErrInvalidTransition, e.Type(), s.Len, err)
	}
	s.Len++
	return nil
}

func (s *State) apply(e Event) error {
	switch e := e.(type) {
	case InboxInserted:
		return s.insert(e)
	case InboxClaimed:
		return s.take(e.List, e.MessageID, s.InTurn, "claim outside a turn")
	case InboxDiscarded:
		if _, ok := s.FindScheduled(e.MessageID); ok {
			return s.unschedule(e.MessageID, e.List)
		}
		return s.take(e.List, e.MessageID, true, "")
	case MessageScheduled:
		return s.schedule(e)
	case TurnStart:
		return s.startTurn(e)
	case TurnEnd:
		return s.endTurn(e)
	case StepStart:
		return s.startStep(e)
	case StepEnd:
		if !s.InStep || e.Step != s.Step {
			return fmt.Errorf("step %d is not open", e.Step)
		}
		if len(s.OpenCalls) > 0 {
			return fmt.Errorf("step %d would leave %d tool calls without results", e.Step, len(s.OpenCalls))
		}
		s.InStep = false
	case SystemMessage:
		s.SystemPrompt = e.Content
	case UserMessage:
	case RuntimeContext:
		s.RuntimeContext = e.Content
	case AssistantMessage:
		if !s.InStep {
			return errors.New("assistant message outside a step")
		}
		s.OpenCalls = slices.Clone(e.ToolCalls)
		s.Usage = s.Usage.Add(e.Usage)
	case AssistantAttempt:
	case ToolCall:
		if !slices.ContainsFunc(s.OpenCalls, func(c ToolCallRequest) bool { return c.ID == e.CallID }) {
			return fmt.Errorf("tool call %q was not requested", e.CallID)
		}
	case ToolResult:
		s.settleCall(e.CallID)
		return s.closeCall(e.CallID)
	case StatusChanged:
		if e.Status == s.Status {
			return fmt.Errorf("status is already %s", e.Status)
		}
		s.Status = e.Status
	case ContextPruned, ContextCompacted:
	default:
		return s.applyControl(e)
	}
	return nil
}

// applyControl folds the control and request events.
func (s *State) applyControl(e Event) error {
	switch e := e.(type) {
	case ModelSelected:
		if e.Refused == "" {
			s.Selection = e.Selection
		}
	case TurnCanceling:
		if !s.InTurn || e.Turn != s.Turn || s.Canceling != "" {
			return fmt.Errorf("turn %d is not open or already canceling", e.Turn)
		}
		if e.Cause == "" {
			return errors.New("cancel without a cause")
		}
		s.Canceling = e.Cause
	case AgentDisposing:
		if s.Disposing {
			return errors.New("agent is already disposing")
		}
		s.Disposing, s.DisposeCause = true, e.Cause
	case MaintenanceQueued:
		s.Maintenance = append(slices.Clip(s.Maintenance), e.Task)
	case MaintenanceDone:
		if len(s.Maintenance) == 0 || s.Maintenance[0] != e.Task || s.InTurn {
			return fmt.Errorf("maintenance %q is not the next task of an idle agent", e.Task)
		}
		s.Maintenance = slices.Clone(s.Maintenance[1:])
	case RequestHeader:
		if !s.InStep {
			return errors.New("request header outside a step")
		}
		h := e
		s.Header = &h
	case RequestContext:
		if !s.InStep {
			return errors.New("request context outside a step")
		}
	case ToolsListed:
		if !s.InTurn || s.InStep {
			return errors.New("tools listed outside a turn's step boundary")
		}
	case SessionStarted:
		return s.startSession()
	case SessionForked:
		return s.forked(e)
	case SessionRewound:
		return s.rewound(e)
	default:
		return s.applyOrchestration(e)
	}
	return nil
}

func (s *State) insert(e InboxInserted) error {
	if !e.List.Valid() {
		return fmt.Errorf("unknown list %q", e.List)
	}
	if e.From != nil && e.From.Kind == ByTimer {
		if err := s.unschedule(e.MessageID, e.List); err != nil {
			return err
		}
	}
	if s.Holds(e.MessageID) {
		return fmt.Errorf("message %q is already pending or scheduled", e.MessageID)
	}
	lst := s.Inbox.list(e.List)
	*lst = append(slices.Clip(*lst), Pending{ID: e.MessageID, Content: e.Content, Wake: e.Wake})
	return nil
}

func (s *State) take(l List, id MessageID, allowed bool, why string) error {
	if !allowed {
		return errors.New(why)
	}
	if !s.Inbox.remove(l, id) {
		return fmt.Errorf("message %q is not pending in %s", id, l)
	}
	return nil
}

func (s *State) startTurn(e TurnStart) error {
	if s.InTurn || e.Turn != s.Turn+1 {
		return fmt.Errorf("turn %d cannot start after turn %d (open %t)", e.Turn, s.Turn, s.InTurn)
	}
	s.Turn, s.InTurn, s.Step, s.InStep, s.OpenCalls = e.Turn, true, 0, false, nil
	if e.RetryOf > 0 {
		s.RetryChain++
	} else {
		s.RetryChain = 0
	}
	return nil
}

func (s *State) endTurn(e TurnEnd) error {
	if !s.InTurn || e.Turn != s.Turn || s.InStep {
		return fmt.Errorf("turn %d is not open or a step is still open", e.Turn)
	}
	if len(s.OpenCalls) > 0 {
		return fmt.Errorf("turn %d would leave %d tool calls without results", e.Turn, len(s.OpenCalls))
	}
	s.InTurn, s.Canceling = false, ""
	return nil
}

func (s *State) startStep(e StepStart) error {
	if !s.InTurn || s.InStep || e.Turn != s.Turn || e.Step != s.Step+1 {
		return fmt.Errorf("step %d.%d cannot start after %d.%d", e.Turn, e.Step, s.Turn, s.Step)
	}
	if len(s.OpenCalls) > 0 {
		return fmt.Errorf("step %d.%d would leave tool calls without results", e.Turn, e.Step)
	}
	s.Step, s.InStep = e.Step, true
	return nil
}

func (s *State) closeCall(id string) error {
	i := slices.IndexFunc(s.OpenCalls, func(c ToolCallRequest) bool { return c.ID == id })
	if i < 0 {
		return fmt.Errorf("tool result for %q has no open call", id)
	}
	if i != 0 {
		return fmt.Errorf("tool result for %q out of model order", id)
	}
	s.OpenCalls = slices.Delete(slices.Clone(s.OpenCalls), 0, 1)
	return nil
}
