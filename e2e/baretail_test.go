package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// inBothModes runs a corpus scenario twice: on a worker that writes
// Tether's search attributes, and on one that writes none
// (--no-search-attributes), where a turn that ends the plainest way is
// journaled nowhere and projection finds it from the workflow task alone.
// The second records its histories as "bare-" + name.
func inBothModes(t *testing.T, scenario func(*testing.T, *env)) {
	t.Run("search-attributes", func(t *testing.T) { scenario(t, newEnv(t)) })
	t.Run("no-search-attributes", func(t *testing.T) {
		e := newEnv(t)
		e.cfg.NoSearchAttributes, e.prefix = true, "bare-"
		scenario(t, e)
	})
}

// Without search attributes a turn of "model calls a tool that runs as an
// activity, then answers" costs exactly what a hand-written workflow pays
// (bench's floor): a signal, 4 workflow tasks of 3 events, 3 activities of
// 3; 22 events. With them, the status upserts (running, idle) add 2.
func TestWithoutSearchAttributesATurnCostsWhatTheFloorDoes(t *testing.T) {
	for _, c := range []struct {
		name string
		bare bool
		want int
	}{{"search-attributes", false, 24}, {"no-search-attributes", true, 22}} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.cfg.NoSearchAttributes = c.bare
			e.startWorker(echoTool())
			ctx := ctxT(t, time.Minute)
			h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "floor-" + c.name,
				Options: signals.AgentOptions{Tools: []string{"echo"}}, First: `/tool echo {"text":"turn 1"}`})
			require.NoError(t, err)
			waitIdle(ctx, t, h)
			for turn := 2; turn <= 4; turn++ {
				before := historyOf(ctx, t, e, h)
				_, err := h.Followup(ctx, fmt.Sprintf(`/tool echo {"text":"turn %d"}`, turn), agent.Unacknowledged())
				require.NoError(t, err)
				waitIdle(ctx, t, h)
				after := historyOf(ctx, t, e, h)
				require.Len(t, after[len(before):], c.want, "turn %d: %v", turn, eventTypes(after[len(before):]))
			}
			evs := requireProjects(ctx, t, e, h)
			require.Len(t, ofType[eventlog.TurnEnd](evs), 4)
			require.Equal(t, "echo: turn 4", ofType[eventlog.ToolResult](evs)[3].Content)
		})
	}
}

// In a run without search attributes, a model call's answer that arrives
// after its turn was canceled (the activity completed anyway) is no turn
// end: nothing was journaled for it, as for a plain one, but the cancel's
// marker came after the call's input. Projection must not derive a tail
// there; the log and the projection agree.
func TestWithoutSearchAttributesAStaleAnswerIsNoTurnEnd(t *testing.T) {
	e := newEnv(t)
	e.cfg.NoSearchAttributes, e.prefix = true, "bare-"
	m := &deafModel{entered: make(chan struct{}, 4), pass: make(chan struct{})}
	t.Cleanup(func() { close(m.pass) })
	e.providers = map[string]activities.Provider{"deaf": m}
	e.startWorker()
	ctx := ctxT(t, time.Minute)

	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "stale-answer",
		Options: signals.AgentOptions{Provider: "deaf"}, First: "/say too late"})
	require.NoError(t, err)
	<-m.entered
	require.NoError(t, h.Cancel(ctx, "not now", false))
	waitIdle(ctx, t, h)
	m.pass <- struct{}{} // the call answers after its turn ended
	waitFor(t, 30*time.Second, "the stale answer's workflow task", func() bool {
		history := historyOf(ctx, t, e, h)
		answered := false
		for _, ev := range history {
			answered = answered || ev.GetEventType() == enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
		}
		return answered && history[len(history)-1].GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
	})

	_, err = h.Followup(ctx, "/say on time") // answered by the scripted model
	require.NoError(t, err)
	<-m.entered
	m.pass <- struct{}{}
	waitIdle(ctx, t, h)
	evs := requireReplaysAndProjects(ctx, t, e, h, "stale-answer")
	ends := ofType[eventlog.TurnEnd](evs)
	require.Len(t, ends, 2)
	require.Equal(t, eventlog.EndCanceled, ends[0].Reason)
	require.Equal(t, eventlog.EndCompleted, ends[1].Reason)
	var answers []string
	for _, a := range ofType[eventlog.AssistantMessage](evs) {
		answers = append(answers, a.Text)
	}
	require.Equal(t, []string{"on time"}, answers, "the stale answer is not in the log")
}

// In a run without search attributes, a model call that asks for a tool
// needing approval leaves the turn open with nothing journaled and no
// command (no timeout: no timer), like a plain turn end; projection must
// not derive one there, because the answer asked for a tool.
func TestWithoutSearchAttributesAnApprovalWaitIsNoTurnEnd(t *testing.T) {
	e := newEnv(t)
	e.cfg.NoSearchAttributes, e.prefix = true, "bare-"
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "approval", Options: signals.AgentOptions{Tools: []string{"echo"},
		Approval: &signals.ApprovalPolicy{Tools: []string{"echo"}}}, First: `/tool echo {"text":"send it"}`})
	require.NoError(t, err)
	call := waitPendingCall(ctx, t, h)
	_, err = h.Approve(ctx, call, "ops", "fine")
	require.NoError(t, err)
	waitIdle(ctx, t, h)
	evs := requireReplaysAndProjects(ctx, t, e, h, "approval")
	require.Equal(t, "echo: send it", ofType[eventlog.ToolResult](evs)[0].Content)
	require.Len(t, ofType[eventlog.TurnEnd](evs), 1)
}

// deafModel is the scripted model, except that each call waits until the
// test lets it answer and does not hear its cancellation: it answers even
// after its turn was canceled.
type deafModel struct{ entered, pass chan struct{} }

func (m *deafModel) Complete(ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	m.entered <- struct{}{}
	<-m.pass
	return scripted.Provider{}.Complete(context.WithoutCancel(ctx), req)
}

func historyOf(ctx context.Context, t *testing.T, e *env, h *agent.Handle) []*historypb.HistoryEvent {
	t.Helper()
	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	return history
}

func eventTypes(evs []*historypb.HistoryEvent) string {
	b, _ := json.Marshal(func() []string {
		var out []string
		for _, ev := range evs {
			out = append(out, ev.GetEventType().String())
		}
		return out
	}())
	return string(b)
}
