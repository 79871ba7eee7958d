package workflows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// harness runs the agent workflow in the SDK's test environment with a
// scripted model and tools whose latency is set per tool name, in virtual
// time. No sleeps: timers and activity delays are skipped.
type harness struct {
	t     *testing.T
	env   *testsuite.TestWorkflowEnvironment
	times []time.Time // event times of the last log read
}

// modelFunc answers one model call; the test decides from turn and step.
type modelFunc func(in signals.ModelInput) (signals.ModelOutput, error)

// newHarness answers model calls with model, each after modelDelay.
func newHarness(t *testing.T, model modelFunc, modelDelay ...time.Duration) *harness {
	return newHarnessWith(t, Config{}, model, modelDelay...)
}

// newHarnessWith runs the workflow with cfg (hooks, tool modes).
func newHarnessWith(t *testing.T, cfg Config, model modelFunc, modelDelay ...time.Duration) *harness {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(10 * time.Second)
	hs := &headers{next: cfg.Observer}
	cfg.Observer = hs
	Register(env, cfg)
	env.RegisterActivityWithOptions(func(context.Context, signals.ModelInput) (signals.ModelOutput, error) {
		return signals.ModelOutput{}, nil
	}, activity.RegisterOptions{Name: signals.ModelActivity})
	env.RegisterActivityWithOptions(func(context.Context, signals.ToolInput) (signals.ToolOutput, error) {
		return signals.ToolOutput{}, nil
	}, activity.RegisterOptions{Name: signals.ToolActivity})
	env.RegisterActivityWithOptions(func(context.Context, signals.ListToolsInput) (eventlog.ToolsListed, error) {
		return eventlog.ToolsListed{}, nil
	}, activity.RegisterOptions{Name: signals.ListToolsActivity})
	delay := time.Duration(0)
	if len(modelDelay) > 0 {
		delay = modelDelay[0]
	}
	env.OnActivity(signals.ModelActivity, mock.Anything, mock.Anything).After(delay).
		Return(func(ctx context.Context, in signals.ModelInput) (signals.ModelOutput, error) {
			if in.Call.Summarize != nil {
				return answer(summaryText), nil
			}
			return model(hs.fill(ctx, in))
		})
	env.OnUpsertTypedSearchAttributes(mock.Anything).Return(nil)
	return &harness{t: t, env: env}
}

// tool makes calls of name answer "<name> ok <call>" after d of virtual time.
func (h *harness) tool(name string, d time.Duration) {
	h.env.OnActivity(signals.ToolActivity, mock.Anything, mock.MatchedBy(func(in signals.ToolInput) bool {
		return in.Name == name
	})).After(d).Return(func(_ context.Context, in signals.ToolInput) (signals.ToolOutput, error) {
		return signals.ToolOutput{CallID: in.CallID, Name: in.Name, Content: name + " ok " + in.CallID}, nil
	})
}

// at runs f at virtual time d after the start.
func (h *harness) at(d time.Duration, f func()) { h.env.RegisterDelayedCallback(f, d) }

func (h *harness) signal(d time.Duration, name string, v any) {
	h.at(d, func() { h.env.SignalWorkflow(name, v) })
}

// update sends an update at d and records its outcome in *err (nil = accepted).
func (h *harness) update(d time.Duration, name, id string, v any, result *error) {
	h.at(d, func() {
		h.env.UpdateWorkflow(name, id, &testsuite.TestUpdateCallback{
			OnAccept:   func() {},
			OnReject:   func(err error) { *result = err },
			OnComplete: func(_ any, err error) { *result = err },
		}, v)
	})
}

// run starts the agent and disposes it at end, then returns its log.
func (h *harness) run(opts signals.AgentOptions, first string, end time.Duration) []eventlog.Event {
	h.signal(end, signals.DisposeSignal.Name, signals.Dispose{Cause: "test over"})
	in := signals.AgentInput{Options: opts}
	if first != "" {
		in.First = &signals.Message{ID: "m0", Content: first}
	}
	h.env.ExecuteWorkflow(signals.AgentWorkflow, in)
	require.True(h.t, h.env.IsWorkflowCompleted())
	require.NoError(h.t, h.env.GetWorkflowError())
	return h.log()
}

func (h *harness) log() []eventlog.Event {
	v, err := h.env.QueryWorkflow(signals.LogQuery.Name, signals.LogRequest{})
	require.NoError(h.t, err)
	var page signals.LogPage
	require.NoError(h.t, v.Get(&page))
	evs, err := eventlog.DecodeAll(page.Events)
	require.NoError(h.t, err)
	h.times = h.times[:0]
	for _, env := range page.Events {
		h.times = append(h.times, env.At)
	}
	return evs
}

// summaryText is what the model answers to every compaction request.
const summaryText = "summary of the earlier conversation"

// Model replies.

func answer(text string) signals.ModelOutput {
	return signals.ModelOutput{Text: text, FinishReason: eventlog.FinishStop}
}

func calls(names ...string) signals.ModelOutput {
	out := signals.ModelOutput{FinishReason: eventlog.FinishToolCalls}
	for i, n := range names {
		out.ToolCalls = append(out.ToolCalls, eventlog.ToolCallRequest{
			ID: fmt.Sprintf("c%d", i), Name: n, Arguments: json.RawMessage(`{}`),
		})
	}
	return out
}

// byStep answers from a table keyed "turn.step"; anything else answers "done".
func byStep(replies map[string]signals.ModelOutput) modelFunc {
	return func(in signals.ModelInput) (signals.ModelOutput, error) {
		if r, ok := replies[fmt.Sprintf("%d.%d", in.Call.Turn, in.Call.Step)]; ok {
			return r, nil
		}
		return answer("done"), nil
	}
}

// types lists the event types of a log, for sequence assertions.
func types(evs []eventlog.Event) []eventlog.Type {
	out := make([]eventlog.Type, len(evs))
	for i, e := range evs {
		out[i] = e.Type()
	}
	return out
}

func only[E eventlog.Event](evs []eventlog.Event) []E {
	var out []E
	for _, e := range evs {
		if v, ok := e.(E); ok {
			out = append(out, v)
		}
	}
	return out
}

// concludingTool makes calls of name return a result that concludes the turn.
func (h *harness) concludingTool(name string) {
	h.env.OnActivity(signals.ToolActivity, mock.Anything, mock.MatchedBy(func(in signals.ToolInput) bool {
		return in.Name == name
	})).Return(func(_ context.Context, in signals.ToolInput) (signals.ToolOutput, error) {
		return signals.ToolOutput{CallID: in.CallID, Name: in.Name, Content: "final", ConcludesTurn: true}, nil
	})
}

// recordingTool is tool(name, d) that also reports when each call started
// (the mock answers at completion, d after the start), in virtual time.
func (h *harness) recordingTool(name string, d time.Duration, onStart func(at time.Time)) {
	h.env.OnActivity(signals.ToolActivity, mock.Anything, mock.MatchedBy(func(in signals.ToolInput) bool {
		return in.Name == name
	})).After(d).Return(func(_ context.Context, in signals.ToolInput) (signals.ToolOutput, error) {
		onStart(h.env.Now().Add(-d))
		return signals.ToolOutput{CallID: in.CallID, Name: in.Name, Content: name + " ok " + in.CallID}, nil
	})
}

// failingTool makes every attempt of name fail with err.
func (h *harness) failingTool(name string, err error) {
	h.env.OnActivity(signals.ToolActivity, mock.Anything, mock.MatchedBy(func(in signals.ToolInput) bool {
		return in.Name == name
	})).Return(signals.ToolOutput{}, err)
}

// at0 is the recorded time of the i-th event of the last log read.
func (h *harness) at0(i int) time.Time { return h.times[i] }

// status reads the status query.
func (h *harness) status() signals.StatusView {
	v, err := h.env.QueryWorkflow(signals.StatusQuery.Name)
	require.NoError(h.t, err)
	var st signals.StatusView
	require.NoError(h.t, v.Get(&st))
	return st
}

// bigTool makes calls of name return content.
func (h *harness) bigTool(name, content string) {
	h.env.OnActivity(signals.ToolActivity, mock.Anything, mock.MatchedBy(func(in signals.ToolInput) bool {
		return in.Name == name
	})).Return(func(_ context.Context, in signals.ToolInput) (signals.ToolOutput, error) {
		return signals.ToolOutput{CallID: in.CallID, Name: in.Name, Content: content}, nil
	})
}

var errNoOutcome = errors.New("no outcome")

// envelopes reads the raw log.
func (h *harness) envelopes() []eventlog.Envelope {
	v, err := h.env.QueryWorkflow(signals.LogQuery.Name, signals.LogRequest{})
	require.NoError(h.t, err)
	var page signals.LogPage
	require.NoError(h.t, v.Get(&page))
	return page.Events
}
