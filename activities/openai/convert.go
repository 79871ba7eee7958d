package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

// emptySchema stands in for a tool that declares no parameters; some servers
// reject a function tool without a parameters object.
var emptySchema = map[string]any{"type": "object", "properties": map[string]any{}}

// buildParams converts a request into chat completion params.
func buildParams(req llm.Request, defaultModel string) (openai.ChatCompletionNewParams, error) {
	model := req.Model
	if model == "" {
		model = defaultModel
	}
	if model == "" {
		return openai.ChatCompletionNewParams{}, invalid("no model: the request and the provider default are both empty")
	}
	msgs, err := toMessages(req.Messages)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	tools, err := toTools(req.Tools)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	p := openai.ChatCompletionNewParams{Model: model, Messages: msgs, Tools: tools}
	if req.MaxTokens > 0 {
		// max_tokens is deprecated and rejected by reasoning models; see doc.go.
		p.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
	}
	if req.Effort != "" {
		// Passed through unchecked: the server knows which efforts its
		// models accept ("minimal", "xhigh", ...) better than we do.
		p.ReasoningEffort = shared.ReasoningEffort(req.Effort)
	}
	return p, nil
}

func toMessages(msgs []eventlog.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs))
	for i, m := range msgs {
		switch m.Role {
		case eventlog.RoleSystem:
			out = append(out, openai.SystemMessage(m.Content))
		case eventlog.RoleUser:
			out = append(out, openai.UserMessage(m.Content))
		case eventlog.RoleAssistant:
			out = append(out, assistantMessage(m))
		case eventlog.RoleTool:
			out = append(out, openai.ToolMessage(toolContent(m), m.ToolCallID))
		default:
			return nil, invalid(fmt.Sprintf("message %d: unknown role %q", i, m.Role))
		}
	}
	return out, nil
}

// ErrorPrefix starts the content of a tool message whose result failed
// (eventlog.Message.IsError), unless the content starts with "error" in
// any case already: the chat completions wire format has no error flag,
// so only the words tell the model the tool failed.
const ErrorPrefix = "Error: "

// toolContent is what the model reads of a tool result.
func toolContent(m eventlog.Message) string {
	switch {
	case !m.IsError:
		return m.Content
	case m.Content == "":
		return strings.TrimSuffix(ErrorPrefix, ": ")
	case len(m.Content) >= 5 && strings.EqualFold(m.Content[:5], "error"):
		return m.Content
	}
	return ErrorPrefix + m.Content
}

// assistantMessage omits empty content when tool calls carry the turn, as the
// API requires content only when there are no tool calls.
func assistantMessage(m eventlog.Message) openai.ChatCompletionMessageParamUnion {
	var a openai.ChatCompletionAssistantMessageParam
	if m.Content != "" || len(m.ToolCalls) == 0 {
		a.Content.OfString = param.NewOpt(m.Content)
	}
	for _, tc := range m.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: tc.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
					Name: tc.Name, Arguments: argumentsText(tc.Arguments),
				},
			},
		})
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}
}

// argumentsText is the inverse of toArguments: a JSON string value holds
// arguments the model wrote as non-JSON, so it goes back unquoted.
func argumentsText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "{}"
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// toTools returns nil for no tools: the SDK sends an empty slice as
// "tools":[], which OpenAI rejects.
func toTools(specs []llm.ToolSpec) ([]openai.ChatCompletionToolUnionParam, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := make([]openai.ChatCompletionToolUnionParam, 0, len(specs))
	for _, s := range specs {
		schema, err := toSchema(s.Parameters)
		if err != nil {
			return nil, invalid(fmt.Sprintf("tool %q: parameters must be a JSON object schema", s.Name))
		}
		def := shared.FunctionDefinitionParam{Name: s.Name, Parameters: schema}
		if s.Description != "" {
			def.Description = param.NewOpt(s.Description)
		}
		out = append(out, openai.ChatCompletionFunctionTool(def))
	}
	return out, nil
}

// toSchema keeps each top-level value as raw JSON so the schema reaches the
// wire byte for byte (the SDK would re-encode json.Number as a string).
func toSchema(raw json.RawMessage) (shared.FunctionParameters, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return emptySchema, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, errors.New("schema is not an object")
	}
	if len(fields) == 0 {
		return emptySchema, nil
	}
	schema := make(shared.FunctionParameters, len(fields))
	for k, v := range fields {
		schema[k] = v
	}
	return schema, nil
}

func invalid(msg string) error {
	return llm.Fail(eventlog.FailureInvalidRequest, 0, 0, msg, nil)
}

// toAssistant maps the first choice of a completion to the log's message.
func toAssistant(c *openai.ChatCompletion) (eventlog.AssistantMessage, error) {
	if c == nil || len(c.Choices) == 0 {
		return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureServer, 0, 0, "response has no choices", nil)
	}
	choice := c.Choices[0]
	msg := eventlog.AssistantMessage{
		Text:      choice.Message.Content,
		ToolCalls: toToolCalls(choice.Message.ToolCalls),
		Usage: eventlog.Usage{
			// prompt_tokens counts cached and written tokens too.
			InputTokens:      c.Usage.PromptTokens,
			OutputTokens:     c.Usage.CompletionTokens,
			CachedTokens:     c.Usage.PromptTokensDetails.CachedTokens,
			CacheWriteTokens: c.Usage.PromptTokensDetails.CacheWriteTokens,
		},
		Provider: providerName,
		Model:    c.Model,
	}
	if msg.Text == "" {
		// A refusal is the model's answer; keep it in the conversation.
		msg.Text = choice.Message.Refusal
	}
	msg.FinishReason = finishReason(choice.FinishReason, len(msg.ToolCalls) > 0)
	return msg, nil
}

// toToolCalls reads the function fields directly rather than switching on
// type: some compatible servers omit "type". Only function tools are offered,
// so no other kind is expected back. Compatible servers may send calls
// without ids or with one id twice; the ids are normalised, so each call
// keeps its own arguments and idempotency key.
func toToolCalls(calls []openai.ChatCompletionMessageToolCallUnion) []eventlog.ToolCallRequest {
	if len(calls) == 0 {
		return nil
	}
	out := make([]eventlog.ToolCallRequest, 0, len(calls))
	for _, tc := range calls {
		out = append(out, eventlog.ToolCallRequest{
			ID: tc.ID, Name: tc.Function.Name, Arguments: toArguments(tc.Function.Arguments),
		})
	}
	return llm.NormalizeToolCalls(out)
}

// toArguments keeps the message valid JSON whatever the model wrote: empty
// means no arguments, and any other text that is not a JSON object, array,
// number or literal is stored as a JSON string holding it verbatim (so a
// string value always round-trips through argumentsText exactly).
func toArguments(s string) json.RawMessage {
	trimmed := bytes.TrimSpace([]byte(s))
	if len(trimmed) == 0 {
		return json.RawMessage("{}")
	}
	if trimmed[0] != '"' && json.Valid(trimmed) {
		return json.RawMessage(trimmed)
	}
	quoted, _ := json.Marshal(s) // marshaling a string cannot fail
	return quoted
}

// finishReason normalises the wire reason. Some servers (older vLLM tool
// parsers) report "stop", or nothing, alongside tool calls; the call still
// ended because the model asked for tools.
func finishReason(reason string, hasToolCalls bool) eventlog.FinishReason {
	switch {
	case reason == "tool_calls" || reason == "function_call":
		return eventlog.FinishToolCalls
	case reason == "length":
		return eventlog.FinishMaxTokens
	case reason == "content_filter":
		return eventlog.FinishContentFilter
	case hasToolCalls && (reason == "" || reason == "stop"):
		return eventlog.FinishToolCalls
	case reason == "stop":
		return eventlog.FinishStop
	default:
		return eventlog.FinishOther
	}
}
