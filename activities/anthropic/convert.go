package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

// Thinking budgets per llm.Request.Effort. The API's minimum is 1024.
var thinkingBudgets = map[string]int64{"low": 1024, "medium": 4096, "high": 16384}

// buildParams converts a request into Messages API params.
func buildParams(req llm.Request, defaultModel string, defaultMaxTokens int64) (sdk.MessageNewParams, error) {
	model := req.Model
	if model == "" {
		model = defaultModel
	}
	if model == "" {
		return sdk.MessageNewParams{}, invalid("no model: the request and the provider default are both empty")
	}
	budget, ok := thinkingBudgets[req.Effort]
	if !ok && req.Effort != "" {
		return sdk.MessageNewParams{}, invalid(fmt.Sprintf("unknown effort %q: want low, medium or high", req.Effort))
	}
	system, msgs, err := toMessages(req.Messages)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	tools, err := toTools(req.Tools)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	p := sdk.MessageNewParams{Model: sdk.Model(model), MaxTokens: defaultMaxTokens, Messages: msgs, Tools: tools}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	if system != "" {
		p.System = []sdk.TextBlockParam{{Text: system}}
	}
	if budget > 0 && !continuesToolLoop(msgs) {
		p.Thinking = sdk.ThinkingConfigParamOfEnabled(budget)
		// Thinking counts against max_tokens, which must exceed the budget:
		// a cap at or below it is kept whole for the answer on top.
		if p.MaxTokens <= budget {
			p.MaxTokens += budget
		}
	}
	return p, nil
}

// continuesToolLoop reports whether the request answers tool calls. The API
// then wants the thinking blocks of the assistant turn that made the calls,
// which the log does not keep, unless thinking is off for the request.
func continuesToolLoop(msgs []sdk.MessageParam) bool {
	if len(msgs) == 0 {
		return false
	}
	for _, b := range msgs[len(msgs)-1].Content {
		if b.OfToolResult != nil {
			return true
		}
	}
	return false
}

// turn is one API message being assembled. A user turn keeps tool results
// apart from text because the API wants the results first.
type turn struct {
	role    sdk.MessageParamRole
	results []sdk.ContentBlockParamUnion
	blocks  []sdk.ContentBlockParamUnion
}

// conversation assembles the system prompt and alternating turns. Empty
// content is dropped: the API rejects empty text blocks and empty messages.
type conversation struct {
	system []string
	turns  []*turn
}

// toMessages splits the conversation into the system prompt and alternating
// user and assistant turns.
func toMessages(msgs []eventlog.Message) (string, []sdk.MessageParam, error) {
	var c conversation
	for i, m := range msgs {
		if err := c.add(m); err != nil {
			return "", nil, invalid(fmt.Sprintf("message %d: %v", i, err))
		}
	}
	if len(c.turns) == 0 {
		return "", nil, invalid("no messages: the conversation has no user or assistant content")
	}
	out := make([]sdk.MessageParam, 0, len(c.turns))
	for _, t := range c.turns {
		out = append(out, sdk.MessageParam{Role: t.role, Content: append(t.results, t.blocks...)})
	}
	return strings.Join(c.system, "\n\n"), out, nil
}

func (c *conversation) add(m eventlog.Message) error {
	switch m.Role {
	case eventlog.RoleSystem:
		if m.Content != "" {
			c.system = append(c.system, m.Content)
		}
	case eventlog.RoleUser:
		if m.Content != "" {
			t := c.turn(sdk.MessageParamRoleUser)
			t.blocks = append(t.blocks, sdk.NewTextBlock(m.Content))
		}
	case eventlog.RoleTool:
		t := c.turn(sdk.MessageParamRoleUser)
		t.results = append(t.results, toolResult(m))
	case eventlog.RoleAssistant:
		if blocks := assistantBlocks(m); len(blocks) > 0 {
			t := c.turn(sdk.MessageParamRoleAssistant)
			t.blocks = append(t.blocks, blocks...)
		}
	default:
		return fmt.Errorf("unknown role %q", m.Role)
	}
	return nil
}

// turn returns the open turn of role, opening one unless the last turn has
// that role already: consecutive messages of one role share a turn.
func (c *conversation) turn(role sdk.MessageParamRole) *turn {
	if n := len(c.turns); n > 0 && c.turns[n-1].role == role {
		return c.turns[n-1]
	}
	c.turns = append(c.turns, &turn{role: role})
	return c.turns[len(c.turns)-1]
}

// toolResult leaves empty content out: an empty text block is rejected.
func toolResult(m eventlog.Message) sdk.ContentBlockParamUnion {
	r := sdk.ToolResultBlockParam{ToolUseID: m.ToolCallID}
	if m.Content != "" {
		r.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: m.Content}}}
	}
	if m.IsError {
		r.IsError = param.NewOpt(true)
	}
	return sdk.ContentBlockParamUnion{OfToolResult: &r}
}

func assistantBlocks(m eventlog.Message) []sdk.ContentBlockParamUnion {
	var blocks []sdk.ContentBlockParamUnion
	if m.Content != "" {
		blocks = append(blocks, sdk.NewTextBlock(m.Content))
	}
	for _, tc := range m.ToolCalls {
		blocks = append(blocks, sdk.NewToolUseBlock(tc.ID, toolInput(tc.Arguments), tc.Name))
	}
	return blocks
}

// toolInput makes a tool_use input the API accepts, which is only a JSON
// object. Arguments that are something else (another provider's model wrote
// them; see the openai adapter) are kept for the model to see, under
// "arguments".
func toolInput(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return json.RawMessage("{}")
	case raw[0] == '{' && json.Valid(raw):
		return raw
	case json.Valid(raw):
		return json.RawMessage(`{"arguments":` + string(raw) + `}`)
	default:
		quoted, _ := json.Marshal(string(raw)) // marshaling a string cannot fail
		return json.RawMessage(`{"arguments":` + string(quoted) + `}`)
	}
}

// emptySchema stands in for a tool that declares no parameters.
func emptySchema() sdk.ToolInputSchemaParam {
	return sdk.ToolInputSchemaParam{Properties: map[string]any{}}
}

// toTools returns nil for no tools, leaving "tools" out of the request.
func toTools(specs []llm.ToolSpec) ([]sdk.ToolUnionParam, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := make([]sdk.ToolUnionParam, 0, len(specs))
	for _, s := range specs {
		schema, err := toSchema(s.Parameters)
		if err != nil {
			return nil, invalid(fmt.Sprintf("tool %q: parameters must be a JSON object schema of type object", s.Name))
		}
		tool := sdk.ToolParam{Name: s.Name, InputSchema: schema}
		if s.Description != "" {
			tool.Description = param.NewOpt(s.Description)
		}
		out = append(out, sdk.ToolUnionParam{OfTool: &tool})
	}
	return out, nil
}

// toSchema keeps each top-level value as raw JSON so the schema reaches the
// wire unchanged. The SDK always writes "type":"object", the only type an
// input schema may have, so a schema naming another type is refused.
func toSchema(raw json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return emptySchema(), nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return sdk.ToolInputSchemaParam{}, errors.New("schema is not an object")
	}
	if t, ok := fields["type"]; ok && !bytes.Equal(bytes.TrimSpace(t), []byte(`"object"`)) {
		return sdk.ToolInputSchemaParam{}, errors.New("schema type is not object")
	}
	delete(fields, "type")
	if len(fields) == 0 {
		return emptySchema(), nil
	}
	schema := sdk.ToolInputSchemaParam{ExtraFields: make(map[string]any, len(fields))}
	for k, v := range fields {
		schema.ExtraFields[k] = v
	}
	return schema, nil
}

func invalid(msg string) error {
	return llm.Fail(eventlog.FailureInvalidRequest, 0, 0, msg, nil)
}
