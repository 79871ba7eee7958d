package scripted

import (
	"context"
	"strings"
	"time"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

// Stream answers like Complete and emits the answer word by word, and each
// tool call's name then arguments, so live streaming can be seen and tested
// without a model.
func (p Provider) Stream(ctx context.Context, req llm.Request, emit func(llm.Chunk)) (eventlog.AssistantMessage, error) {
	msg, err := p.Complete(ctx, req)
	if err != nil {
		return msg, err
	}
	for _, w := range strings.SplitAfter(msg.Text, " ") {
		if w == "" {
			continue
		}
		if err := pause(ctx, p.WordDelay); err != nil {
			return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureCanceled, 0, 0, "canceled", err)
		}
		emit(llm.Chunk{Text: w})
	}
	for i, c := range msg.ToolCalls {
		emit(llm.Chunk{ToolIndex: i, ToolID: c.ID, ToolName: c.Name})
		emit(llm.Chunk{ToolIndex: i, Arguments: string(c.Arguments)})
	}
	return msg, nil
}

func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
