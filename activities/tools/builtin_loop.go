package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tetherdev/tether/signals"
)

// LoopTools are the tools the agent loop runs itself (spawn_agent,
// ask_human, wait): a child agent, a person's answer and a durable timer
// need no tool activity. They are registered so that the model is offered
// them, with these descriptions and schemas, when an agent enables them by
// name; their Run answers only a call that reached a tool activity anyway
// (an agent running rules from before the loop ran them).
func LoopTools() []Tool {
	notHere := func(_ context.Context, c Call) (Result, error) {
		return Result{}, ErrorResult(fmt.Errorf("%s runs in the agent loop, not as a tool activity; this agent's run predates it", c.Name))
	}
	return []Tool{
		{Name: signals.SpawnTool, Run: notHere, Parameters: json.RawMessage(spawnSchema),
			Description: "Start a child agent on a task. mode \"wait\" (default) answers with the child's final answer; " +
				"\"detach\" answers with its ID at once and each of its answers arrives later as a message from it. " +
				"The child may use only tools you may use, and spends a share of your budget."},
		{Name: signals.AskHumanTool, Run: notHere, Parameters: json.RawMessage(askSchema),
			Description: "Ask a person a question and wait for the answer, for as long as it takes."},
		{Name: signals.WaitTool, Run: notHere, Parameters: json.RawMessage(waitSchema),
			Description: "Wait for a number of seconds, or until a time (RFC 3339), on a durable timer."},
	}
}

const spawnSchema = `{"type":"object","properties":{
"task":{"type":"string","description":"the child's first message: what it should do"},
"system_prompt":{"type":"string"},"profile":{"type":"string","description":"a named kind of agent this worker offers"},
"provider":{"type":"string"},"model":{"type":"string"},
"tools":{"type":"array","items":{"type":"string"},"description":"tools the child may use, among yours; omit for all of yours, [] for none"},
"budget":{"type":"number","description":"share of your remaining budget, from 0 to 1"},
"mode":{"type":"string","enum":["wait","detach"]},
"list":{"type":"string","enum":["next-turn","next-step"]}},
"required":["task"]}`

const askSchema = `{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`

const waitSchema = `{"type":"object","properties":{
"seconds":{"type":"number","description":"how long to wait"},
"until":{"type":"string","description":"when to stop waiting, RFC 3339"}}}`
