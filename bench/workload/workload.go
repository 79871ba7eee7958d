// Package workload is the benchmarks' agent workload, shared by the
// in-process benchmarks and the workers of scripts/cluster/run: each turn the
// model calls a tool that returns 2 KB, then answers 400 characters. The
// model is a deterministic stand-in, not an LLM: the benchmarks measure
// Tether and Temporal, not a provider.
//
// It must never do I/O or keep state between calls: any worker may run any
// call, and a retried call must answer exactly as the first.
package workload

import (
	"context"
	"fmt"
	"strings"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/providerfx"
	"github.com/tetherdev/tether/fx/toolfx"
)

// Names agents choose the workload by.
const (
	// Provider is the workload model's provider name.
	Provider = "bench"
	// Fetch is the tool as a regular activity (a tool doing slow I/O).
	Fetch = "fetch"
	// Read is the same tool as a fast local one, like the built-in read_file.
	Read = "read"
	// ResultBytes is the size of every tool result; AnswerChars that of
	// every answer.
	ResultBytes = 2048
	AnswerChars = 400
)

// Model asks for the first offered tool when the conversation ends with a
// user message and tools are offered, and otherwise answers AnswerChars
// characters (a summary's request offers none).
type Model struct{}

// Complete answers req by that rule.
func (Model) Complete(_ context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == eventlog.RoleUser && len(req.Tools) > 0 {
		return eventlog.AssistantMessage{FinishReason: eventlog.FinishToolCalls, ToolCalls: []eventlog.ToolCallRequest{{
			ID: fmt.Sprintf("call_%d", len(req.Messages)), Name: req.Tools[0].Name, Arguments: []byte(`{}`),
		}}}, nil
	}
	text := fmt.Sprintf("answer after %d messages: ", len(req.Messages))
	return eventlog.AssistantMessage{Text: text + strings.Repeat("a", AnswerChars-len(text)), FinishReason: eventlog.FinishStop}, nil
}

// Tool returns ResultBytes derived from the call's ID; local makes it a
// fast tool run as a local activity (it is idempotent, as local tools must
// be).
func Tool(name string, local bool) tools.Tool {
	return tools.Tool{Name: name, Description: "Fetch 2 KB.", Local: local, Idempotent: true, Run: func(_ context.Context, c tools.Call) (tools.Result, error) {
		return tools.Result{Content: strings.Repeat(c.CallID+" ", ResultBytes/(len(c.CallID)+1)+1)[:ResultBytes]}, nil
	}}
}

// Option adds the workload to a Tether worker app (tetherfx.Worker): Model
// as provider Provider beside the configured ones, and the Fetch tool.
// Agents choose them in their options; nothing else changes.
func Option() fx.Option {
	return fx.Options(
		fx.Decorate(func(p providerfx.Providers) providerfx.Providers {
			p.ByName[Provider] = Model{}
			return p
		}),
		fx.Provide(fx.Annotate(func() tools.Tool { return Tool(Fetch, false) }, fx.ResultTags(`group:"`+toolfx.Group+`"`))),
	)
}
