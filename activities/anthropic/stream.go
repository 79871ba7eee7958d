package anthropic

import (
	"context"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

// Stream makes the same call as Complete with SSE streaming. It calls emit
// on the calling goroutine, in order, for every text, thinking and tool
// argument delta as it arrives, and returns the assembled message exactly as
// Complete would. emit blocks the stream while it runs, so it should be
// quick; nil emits nothing. Every error is an *llm.Error; chunks emitted
// before a failure are not retracted, and the caller must discard them.
func (p *Provider) Stream(ctx context.Context, req llm.Request, emit func(llm.Chunk)) (eventlog.AssistantMessage, error) {
	params, err := p.params(req)
	if err != nil {
		return eventlog.AssistantMessage{}, err
	}
	if emit == nil {
		emit = func(llm.Chunk) {}
	}
	emit, flush := p.scrubber.Stream(emit) // no chunk spells the key, even split
	defer flush()
	var raw *http.Response
	stream := p.messages.NewStreaming(ctx, params, option.WithResponseInto(&raw))
	defer stream.Close()

	var acc sdk.Message
	chunks := chunker{tools: map[int64]int{}}
	stopped := false
	for !stopped && stream.Next() {
		ev := stream.Current()
		if err := acc.Accumulate(ev); err != nil {
			return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureServer, 0, 0, "malformed stream: "+p.scrubber.String(err.Error()), nil)
		}
		if c, ok := chunks.of(ev); ok {
			emit(c)
		}
		stopped = ev.Type == "message_stop"
	}
	if err := stream.Err(); err != nil {
		return eventlog.AssistantMessage{}, p.streamFailure(ctx, err, raw)
	}
	if !stopped {
		return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureNetwork, 0, 0, "stream ended before message_stop", nil)
	}
	return p.scrubber.Reply(toAssistant(&acc))
}

// chunker turns stream events into chunks. tools maps a content block index
// to the tool call's position among the reply's calls.
type chunker struct {
	tools map[int64]int
}

func (c *chunker) of(ev sdk.MessageStreamEventUnion) (llm.Chunk, bool) {
	switch ev.Type {
	case "content_block_start":
		return c.start(ev)
	case "content_block_delta":
		return c.delta(ev)
	default:
		return llm.Chunk{}, false
	}
}

// start announces a tool call, and passes on any text a block opens with
// (the API opens with empty text, but nothing promises it).
func (c *chunker) start(ev sdk.MessageStreamEventUnion) (llm.Chunk, bool) {
	b := ev.ContentBlock
	switch b.Type {
	case "tool_use":
		i := len(c.tools)
		c.tools[ev.Index] = i
		return llm.Chunk{ToolIndex: i, ToolID: b.ID, ToolName: b.Name}, true
	case "text":
		return llm.Chunk{Text: b.Text}, b.Text != ""
	case "thinking":
		return llm.Chunk{Reasoning: b.Thinking}, b.Thinking != ""
	default:
		return llm.Chunk{}, false
	}
}

func (c *chunker) delta(ev sdk.MessageStreamEventUnion) (llm.Chunk, bool) {
	d := ev.Delta
	switch d.Type {
	case "text_delta":
		return llm.Chunk{Text: d.Text}, d.Text != ""
	case "thinking_delta":
		return llm.Chunk{Reasoning: d.Thinking}, d.Thinking != ""
	case "input_json_delta":
		i, ok := c.tools[ev.Index]
		return llm.Chunk{ToolIndex: i, Arguments: d.PartialJSON}, ok && d.PartialJSON != ""
	default: // signature_delta, citations_delta
		return llm.Chunk{}, false
	}
}
