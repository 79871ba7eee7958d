package workflows

import (
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// conversation folds the model-facing context: the carried context of a
// continued run, then this run's events. It is computed when compaction or
// Continue-As-New needs it, not kept beside the log.
func (c *Core) conversation() (*eventlog.Conversation, error) {
	conv := eventlog.RestoreConversation(c.context)
	for _, env := range c.log {
		e, err := eventlog.Decode(env)
		if err != nil {
			return nil, err
		}
		conv.Apply(e)
	}
	return conv, nil
}

// ContextTokens estimates the model context's size in tokens (4 bytes
// each). It is kept current as events are recorded, so the pressure check
// before every step costs nothing.
func (c *Core) ContextTokens() int { return c.chars / 4 }

// PlanPrune picks the tool results to prune: longer than over bytes, not
// among the last keepRecent messages, not pruned yet.
func (c *Core) PlanPrune(over, keepRecent int) []string {
	conv, err := c.conversation()
	if err != nil || over < 0 {
		return nil
	}
	msgs := withoutSystem(conv.Messages())
	var ids []string
	for _, m := range msgs[:max(0, len(msgs)-keepRecent)] {
		if m.Role == eventlog.RoleTool && len(m.Content) > over && m.Content != eventlog.PrunedNotice {
			ids = append(ids, m.ToolCallID)
		}
	}
	return ids
}

// SummaryKeep says how many recent messages a summary keeps verbatim: at
// least keepRecent, starting at a user message so no tool result loses its
// call. It returns -1 when there is nothing before them to summarise.
func (c *Core) SummaryKeep(keepRecent int) int {
	conv, err := c.conversation()
	if err != nil {
		return -1
	}
	msgs := withoutSystem(conv.Messages())
	start := max(0, len(msgs)-keepRecent)
	for start > 0 && msgs[start].Role != eventlog.RoleUser {
		start--
	}
	if start == 0 {
		return -1
	}
	return len(msgs) - start
}

func withoutSystem(msgs []eventlog.Message) []eventlog.Message {
	if len(msgs) > 0 && msgs[0].Role == eventlog.RoleSystem {
		return msgs[1:]
	}
	return msgs
}

// Pruned records pruned tool results.
func (c *Core) Pruned(now time.Time, ids []string) {
	c.record(now, "", eventlog.ContextPruned{CallIDs: ids})
}

// Compacted records a summary made by the model activity activityID.
func (c *Core) Compacted(now time.Time, text string, keep int, activityID string) {
	c.record(now, eventlog.ActivityRef(activityID), eventlog.ContextCompacted{Text: text, Keep: keep})
}
