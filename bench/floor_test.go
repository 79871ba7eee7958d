package bench

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/eventlog"
)

// The floor is the workload as a bare, hand-written Temporal workflow with
// no Tether in it: a signal brings the prompt, then a model activity, a
// tool activity and a model activity run with the same fake model and the
// same 2 KB tool, on the same worker and server. A turn of it costs what
// Temporal itself costs: 4 workflow tasks and 3 activities, nothing more.
const (
	floorWorkflow = "bench.Floor"
	floorModel    = "bench.FloorModel"
	floorTool     = "bench.FloorTool"
	floorSignal   = "turn"
)

// floorCall is the floor model's input: the prompt, and after the tool
// its call and result (a hand-written workflow passes what the model needs).
type floorCall struct {
	Prompt string                    `json:"prompt"`
	Call   *eventlog.ToolCallRequest `json:"call,omitempty"`
	Result string                    `json:"result,omitempty"`
}

// registerFloor adds the floor workflow and its activities to a worker.
func registerFloor(r worker.Registry) {
	r.RegisterWorkflowWithOptions(floor, workflow.RegisterOptions{Name: floorWorkflow})
	r.RegisterActivityWithOptions(floorModelCall, activity.RegisterOptions{Name: floorModel})
	r.RegisterActivityWithOptions(floorToolRun, activity.RegisterOptions{Name: floorTool})
}

func floor(ctx workflow.Context) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	turns := workflow.GetSignalChannel(ctx, floorSignal)
	for {
		var prompt string
		turns.Receive(ctx, &prompt)
		var ask eventlog.AssistantMessage
		if err := workflow.ExecuteActivity(ctx, floorModel, floorCall{Prompt: prompt}).Get(ctx, &ask); err != nil {
			return err
		}
		call := ask.ToolCalls[0]
		var res tools.Result
		if err := workflow.ExecuteActivity(ctx, floorTool, call).Get(ctx, &res); err != nil {
			return err
		}
		var answer eventlog.AssistantMessage
		if err := workflow.ExecuteActivity(ctx, floorModel, floorCall{Prompt: prompt, Call: &call, Result: res.Content}).Get(ctx, &answer); err != nil {
			return err
		}
	}
}

// floorModelCall asks workload.Model, as Tether's model activity does.
func floorModelCall(ctx context.Context, in floorCall) (eventlog.AssistantMessage, error) {
	msgs := []eventlog.Message{{Role: eventlog.RoleUser, Content: in.Prompt}}
	if in.Call != nil {
		msgs = append(msgs,
			eventlog.Message{Role: eventlog.RoleAssistant, ToolCalls: []eventlog.ToolCallRequest{*in.Call}},
			eventlog.Message{Role: eventlog.RoleTool, ToolCallID: in.Call.ID, Name: in.Call.Name, Content: in.Result})
	}
	return workload.Model{}.Complete(ctx, llm.Request{Messages: msgs, Tools: []llm.ToolSpec{{Name: workload.Fetch}}})
}

// floorToolRun runs the workload's 2 KB tool.
func floorToolRun(ctx context.Context, call eventlog.ToolCallRequest) (tools.Result, error) {
	return workload.Tool(workload.Fetch, false).Run(ctx, tools.Call{CallID: call.ID, Name: call.Name, Arguments: call.Arguments})
}
