package eventlog

import (
	"maps"
	"slices"
)

// Role is who speaks a model-facing message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// SummaryPrefix introduces a compaction summary to the model.
const SummaryPrefix = "[summary of the earlier conversation]\n"

// PrunedNotice replaces a pruned tool result's content.
const PrunedNotice = "[tool result pruned to save context; it is in the session log]"

func (c *Conversation) prune(ids []string) {
	for i, m := range c.messages {
		if m.Role == RoleTool && slices.Contains(ids, m.ToolCallID) {
			c.messages[i].Content = PrunedNotice
		}
	}
}

// edit gives the assistant message that made call callID the arguments a
// person approved it with: the model sees its call as made, and the tool
// result that follows answers those arguments.
func (c *Conversation) edit(callID string, args []byte) {
	for i := len(c.messages) - 1; i >= 0; i-- {
		if m := c.messages[i]; m.Role == RoleAssistant && slices.ContainsFunc(m.ToolCalls, func(tc ToolCallRequest) bool { return tc.ID == callID }) {
			c.messages[i].ToolCalls = editCall(m.ToolCalls, callID, args)
			return
		}
	}
}

// Chars is the size of the conversation's content, for token estimates.
func (c *Conversation) Chars() int {
	n := len(c.system)
	for _, m := range c.messages {
		n += m.Chars()
	}
	return n
}

// Chars is what one message adds to Conversation.Chars: its content and
// its tool calls' names and arguments.
func (m Message) Chars() int {
	n := len(m.Content)
	for _, tc := range m.ToolCalls {
		n += len(tc.Name) + len(tc.Arguments)
	}
	return n
}

// RuntimeContextPrefix introduces a runtime-context snapshot to the model.
const RuntimeContextPrefix = "[runtime context]\n"

// Message is one entry of the model-facing conversation derived from the log.
type Message struct {
	Role       Role              `json:"role"`
	Content    string            `json:"content,omitempty"`
	ToolCalls  []ToolCallRequest `json:"tool_calls,omitempty"`
	ToolCallID string            `json:"tool_call_id,omitempty"`
	Name       string            `json:"name,omitempty"`
	IsError    bool              `json:"is_error,omitempty"`
}

// Conversation folds session events into the conversation a provider sees.
// It is incremental so a reader can keep one per agent and apply only the
// events it has not seen. The zero value is empty and ready.
type Conversation struct {
	system   string
	messages []Message
	applied  int64 // events applied, i.e. the log position folded up to
	tools    Listings
}

// Apply folds one event. Events that do not face the model are ignored.
func (c *Conversation) Apply(e Event) {
	c.applied++
	switch e := e.(type) {
	case SystemMessage:
		c.system = e.Content
	case UserMessage:
		c.messages = append(c.messages, Message{Role: RoleUser, Content: e.Content})
	case RuntimeContext:
		if e.Content != "" {
			c.messages = append(c.messages, Message{Role: RoleUser, Content: RuntimeContextPrefix + e.Content})
		}
	case AssistantMessage:
		// Empty content stays out of derived history.
		if e.Text == "" && len(e.ToolCalls) == 0 {
			return
		}
		c.messages = append(c.messages, Message{Role: RoleAssistant, Content: e.Text, ToolCalls: e.ToolCalls})
	case ToolResult:
		c.messages = append(c.messages, Message{
			Role: RoleTool, Content: e.Content, ToolCallID: e.CallID, Name: e.Name, IsError: e.IsError,
		})
	case ToolsListed:
		if c.tools == nil {
			c.tools = Listings{}
		}
		c.tools.Apply(e)
	case DecisionMade:
		if e.Args != "" {
			c.edit(e.CallID, []byte(e.Args))
		}
	case ContextPruned:
		c.prune(e.CallIDs)
	case SessionRewound:
		// A full slice expression: the messages appended after it never
		// overwrite a clone's that shares the array.
		keep := min(max(e.Keep, 0), len(c.messages))
		c.messages = c.messages[:keep:keep]
	case ContextCompacted:
		keep := min(max(e.Keep, 0), len(c.messages))
		kept := c.messages[len(c.messages)-keep:]
		c.messages = append([]Message{{Role: RoleUser, Content: SummaryPrefix + e.Text}}, kept...)
	case InboxInserted, InboxClaimed, InboxDiscarded, TurnStart, TurnEnd, StepStart, StepEnd,
		AssistantAttempt, ToolCall, StatusChanged, ModelSelected, TurnCanceling, AgentDisposing,
		MaintenanceQueued, MaintenanceDone, RequestHeader, RequestContext, ChildStarted, ChildSettled, ChildEnded,
		DecisionRequested, WaitStarted, SessionStarted,
		SessionForked:
	}
}

// Position is the number of events folded so far.
func (c *Conversation) Position() int64 { return c.applied }

// Messages returns the conversation, the current system prompt first. The
// returned slice is a copy the caller may keep.
func (c *Conversation) Messages() []Message {
	out := make([]Message, 0, len(c.messages)+1)
	if c.system != "" {
		out = append(out, Message{Role: RoleSystem, Content: c.system})
	}
	return append(out, c.messages...)
}

// Tools returns the MCP listings recorded so far in this run (a
// continued run lists again before its first step). The caller must not
// modify it.
func (c *Conversation) Tools() Listings { return c.tools }

// Clone returns an independent copy, so a cached fold can be extended without
// disturbing readers of the original.
func (c *Conversation) Clone() *Conversation {
	cp := *c
	cp.messages = append([]Message(nil), c.messages...)
	if c.tools != nil {
		cp.tools = maps.Clone(c.tools)
	}
	return &cp
}

// ConversationOf folds a whole log.
func ConversationOf(events []Event) []Message {
	var c Conversation
	for _, e := range events {
		c.Apply(e)
	}
	return c.Messages()
}

// ConversationSnapshot is a Conversation at a log position, carried across
// Continue-As-New as the derived model context.
type ConversationSnapshot struct {
	System   string    `json:"system,omitempty"`
	Messages []Message `json:"messages,omitempty"`
	Position int64     `json:"position"`
}

// Snapshot captures c.
func (c *Conversation) Snapshot() ConversationSnapshot {
	return ConversationSnapshot{System: c.system, Messages: append([]Message(nil), c.messages...), Position: c.applied}
}

// RestoreConversation is the conversation a snapshot captured; applying the
// events from s.Position on continues it.
func RestoreConversation(s ConversationSnapshot) *Conversation {
	return &Conversation{system: s.System, messages: append([]Message(nil), s.Messages...), applied: s.Position}
}
