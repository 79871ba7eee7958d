package scripted

import (
	"context"
	"strings"

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
		if w != "" {
			emit(llm.Chunk{Text: w})
		}
	}
	for i, c := range msg.ToolCalls {
		emit(llm.Chunk{ToolIndex: i, ToolID: c.ID, ToolName: c.Name})
		emit(llm.Chunk{ToolIndex: i, Arguments: string(c.Arguments)})
	}
	return msg, nil
}
