package openai

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"

	"github.com/tetherdev/tether/activities/llm"
)

// assembly folds stream chunks into the completion a non-streaming call
// would have returned, so Stream and Complete share toAssistant. It is not
// the SDK's ChatCompletionAccumulator because that rejects any chunk whose id
// differs from the first (servers and proxies vary ids and blank them on the
// usage chunk), sums usage across chunks (wrong for servers that report
// running totals on every chunk) and never sees reasoning deltas.
type assembly struct {
	model     string
	text      strings.Builder
	refusal   strings.Builder
	calls     []*streamCall // in order of first appearance
	finish    string
	usage     openai.CompletionUsage
	sawChoice bool
	sawFinish bool
}

// streamCall is one tool call being assembled.
type streamCall struct {
	index    int64 // as the server numbered it
	id, name string
	args     strings.Builder
}

// add folds in one chunk and returns the deltas it carried, in order.
func (a *assembly) add(c *openai.ChatCompletionChunk) []llm.Chunk {
	if c.Model != "" {
		a.model = c.Model
	}
	if c.JSON.Usage.Valid() {
		// The last report wins: OpenAI sends one usage chunk, vLLM with
		// continuous usage stats a running total on each.
		a.usage = c.Usage
	}
	var out []llm.Chunk
	for i := range c.Choices {
		choice := &c.Choices[i]
		if choice.Index != 0 {
			continue // one choice is requested; Complete reads the first
		}
		a.sawChoice = true
		if choice.FinishReason != "" {
			a.finish, a.sawFinish = choice.FinishReason, true
		}
		out = a.addDelta(&choice.Delta, out)
	}
	return out
}

func (a *assembly) addDelta(d *openai.ChatCompletionChunkChoiceDelta, out []llm.Chunk) []llm.Chunk {
	if r := reasoningDelta(d); r != "" {
		out = append(out, llm.Chunk{Reasoning: r})
	}
	if d.Content != "" {
		a.text.WriteString(d.Content)
		out = append(out, llm.Chunk{Text: d.Content})
	}
	if d.Refusal != "" {
		// Shown live as text: the settled message uses it as the text when
		// there is no content.
		a.refusal.WriteString(d.Refusal)
		out = append(out, llm.Chunk{Text: d.Refusal})
	}
	for i := range d.ToolCalls {
		if c, ok := a.addToolDelta(&d.ToolCalls[i]); ok {
			out = append(out, c)
		}
	}
	return out
}

// reasoningDelta reads the visible reasoning that compatible servers add to
// the delta: "reasoning_content" (DeepSeek, vLLM) or "reasoning" (Ollama,
// OpenRouter, newer vLLM). Servers in transition send both with the same
// text, so only one is taken.
func reasoningDelta(d *openai.ChatCompletionChunkChoiceDelta) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		var s string
		if f, ok := d.JSON.ExtraFields[key]; ok && json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// addToolDelta applies one tool call delta. The id and name are reported
// when they first arrive; a server that repeats them on later deltas of the
// same call does not change it.
func (a *assembly) addToolDelta(d *openai.ChatCompletionChunkChoiceDeltaToolCall) (llm.Chunk, bool) {
	pos := a.callFor(d)
	call := a.calls[pos]
	out := llm.Chunk{ToolIndex: pos, Arguments: d.Function.Arguments}
	if d.ID != "" && call.id == "" {
		call.id, out.ToolID = d.ID, d.ID
	}
	if name := d.Function.Name; name != "" && name != call.name {
		call.name += name
		out.ToolName = name
	}
	call.args.WriteString(d.Function.Arguments)
	return out, out.ToolID != "" || out.ToolName != "" || out.Arguments != ""
}

// callFor finds the call a delta continues, or starts a new one. A delta
// continues the latest call with its index and its id (or without an id on
// either side): Ollama and some vLLM parsers send each call whole with index
// 0 or no index at all, so a new id always means a new call. Servers that
// repeat an id (or send none) are told apart by index, and by startsAnother
// when the index repeats too. NormalizeToolCalls then makes the ids unique.
func (a *assembly) callFor(d *openai.ChatCompletionChunkChoiceDeltaToolCall) int {
	for i := len(a.calls) - 1; i >= 0; i-- {
		c := a.calls[i]
		sameID := c.id == d.ID || d.ID == "" || c.id == ""
		if c.index == d.Index && sameID && !startsAnother(c, d) {
			return i
		}
	}
	a.calls = append(a.calls, &streamCall{index: d.Index})
	return len(a.calls) - 1
}

// startsAnother reports whether d, which matches c by index and id, is a
// new call whole: it names a tool and brings arguments while c's arguments
// are already a complete JSON value, which no continuation could extend.
func startsAnother(c *streamCall, d *openai.ChatCompletionChunkChoiceDeltaToolCall) bool {
	return d.Function.Name != "" && d.Function.Arguments != "" && c.args.Len() > 0 && json.Valid([]byte(c.args.String()))
}

// finished reports whether the server said the response was complete.
func (a *assembly) finished() bool { return a.sawFinish }

// completion is what Complete would have decoded for the same content.
func (a *assembly) completion() *openai.ChatCompletion {
	c := &openai.ChatCompletion{Model: a.model, Usage: a.usage}
	if !a.sawChoice {
		return c // toAssistant reports "no choices", as for Complete
	}
	msg := openai.ChatCompletionMessage{Content: a.text.String(), Refusal: a.refusal.String()}
	for _, call := range a.calls {
		msg.ToolCalls = append(msg.ToolCalls, openai.ChatCompletionMessageToolCallUnion{
			ID:   call.id,
			Type: "function",
			Function: openai.ChatCompletionMessageFunctionToolCallFunction{
				Name: call.name, Arguments: call.args.String(),
			},
		})
	}
	c.Choices = []openai.ChatCompletionChoice{{FinishReason: a.finish, Message: msg}}
	return c
}
