package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

// toAssistant maps a Messages API reply, received whole or assembled from a
// stream, to the log's message. Thinking blocks are left out (see doc.go),
// as are server tool blocks, which this adapter never offers.
func toAssistant(m *sdk.Message) (eventlog.AssistantMessage, error) {
	if m == nil || !m.JSON.Content.Valid() {
		return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureServer, 0, 0, "response has no content", nil)
	}
	var text strings.Builder
	var calls []eventlog.ToolCallRequest
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			calls = append(calls, eventlog.ToolCallRequest{ID: b.ID, Name: b.Name, Arguments: toArguments(b.Input)})
		}
	}
	return eventlog.AssistantMessage{
		Text:      text.String(),
		ToolCalls: llm.NormalizeToolCalls(calls),
		Usage: eventlog.Usage{
			// Anthropic's input_tokens exclude cache reads and writes; the
			// loop counts every prompt token as input, and reads and writes
			// also apart.
			InputTokens:      m.Usage.InputTokens + m.Usage.CacheReadInputTokens + m.Usage.CacheCreationInputTokens,
			OutputTokens:     m.Usage.OutputTokens,
			CachedTokens:     m.Usage.CacheReadInputTokens,
			CacheWriteTokens: m.Usage.CacheCreationInputTokens,
		},
		FinishReason: finishReason(m.StopReason),
		Provider:     providerName,
		Model:        string(m.Model),
	}, nil
}

// toArguments keeps the arguments valid JSON: the API sends an object, and a
// stream cut short inside a call's input is already reset to {} by the SDK.
func toArguments(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || !json.Valid(raw) {
		return json.RawMessage("{}")
	}
	return append(json.RawMessage(nil), raw...)
}

// finishReason normalises the stop reason. Running out of context window
// cuts the answer off like running out of max_tokens does.
func finishReason(r sdk.StopReason) eventlog.FinishReason {
	switch r {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		return eventlog.FinishStop
	case sdk.StopReasonToolUse:
		return eventlog.FinishToolCalls
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return eventlog.FinishMaxTokens
	case sdk.StopReasonRefusal:
		return eventlog.FinishContentFilter
	default: // pause_turn, and anything newer
		return eventlog.FinishOther
	}
}
