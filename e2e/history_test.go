package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/proto"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// blobTool returns about size bytes that are unique to the call. It is a
// fast tool: it runs as a local activity, whose result is a marker event.
func blobTool(size int) tools.Tool {
	return tools.Tool{
		Name: "blob", Description: "Return a large unique text.", Local: true, Idempotent: true,
		Run: func(_ context.Context, c tools.Call) (tools.Result, error) {
			unit := "blob-" + strings.ReplaceAll(c.IdempotencyKey, "/", "-") + " "
			return tools.Result{Content: strings.Repeat(unit, size/len(unit)+1)[:size]}, nil
		},
	}
}

func TestHistoryHoldsEachMessageOnceAndModelInputStaysSmall(t *testing.T) {
	e := newEnv(t)
	e.startWorker(blobTool(2048))
	ctx := ctxT(t, 2*time.Minute)

	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID:      "twenty-steps",
		Options: signals.AgentOptions{Tools: []string{"blob"}},
		First:   "first prompt with a unique body\n/repeat 19 blob {}",
	})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	_, err = h.Followup(ctx, "second prompt with another unique body\n/tool blob {}")
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	log, err := h.Log(ctx)
	require.NoError(t, err)
	evs := events(t, log)
	require.Len(t, ofType[eventlog.StepStart](evs), 22, "20 steps in the first turn, 2 in the second")
	history, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)

	raw := historyBytes(t, history)
	var bodies []string
	for _, ev := range evs {
		switch ev := ev.(type) {
		case eventlog.UserMessage:
			bodies = append(bodies, ev.Content)
		case eventlog.ToolResult:
			bodies = append(bodies, ev.Content)
		case eventlog.AssistantMessage:
			if ev.Text != "" {
				bodies = append(bodies, ev.Text)
			}
		}
	}
	require.Len(t, bodies, 2+19+1+2)
	for _, body := range bodies {
		needle, err := json.Marshal(body) // payloads hold JSON strings
		require.NoError(t, err)
		needle = needle[1 : len(needle)-1]
		require.Equal(t, 1, bytes.Count(raw, needle), "body %.60q occurs once in history", body)
	}

	scheduled, markers := 0, 0
	for _, ev := range history {
		if ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == signals.ToolActivity {
			scheduled++
		}
		if ev.GetMarkerRecordedEventAttributes().GetMarkerName() == "LocalActivity" {
			markers++
		}
	}
	require.Zero(t, scheduled, "a fast tool runs as a local activity")
	require.Equal(t, 20, markers, "one marker event per call")

	// A model input is the call's settings and the journal of the events
	// since the previous command: a few hundred bytes, whatever the
	// conversation holds. The largest is the second step's, whose journal
	// also records the model's resolution; the README's figure is this
	// bound.
	sizes := modelInputSizes(history)
	require.Len(t, sizes, 22)
	for i, n := range sizes {
		require.LessOrEqual(t, n, maxModelInputBytes, "model input %d is %d bytes", i, n)
	}
	// The first step of a turn carries the turn's opening journal; later
	// steps carry one step's. Neither grows with the conversation.
	require.LessOrEqual(t, sizes[20], sizes[0]+128, "turn-opening inputs grew: %v", sizes)
	require.LessOrEqual(t, sizes[21], sizes[1]+128, "step inputs grew: %v", sizes)
	require.LessOrEqual(t, sizes[19], sizes[1]+128, "step inputs grew: %v", sizes)

	projected, err := projection.FromHistory(history)
	require.NoError(t, err)
	requireSameLog(t, log, projected)
	record(t, "local-tools", history)
}

func historyBytes(t *testing.T, history []*historypb.HistoryEvent) []byte {
	var buf bytes.Buffer
	for _, ev := range history {
		b, err := proto.Marshal(ev)
		require.NoError(t, err)
		buf.Write(b)
	}
	return buf.Bytes()
}

// maxModelInputBytes bounds every model activity input of the e2e's
// twenty-two steps (at most one tool call each), as the README says.
const maxModelInputBytes = 600

func modelInputSizes(history []*historypb.HistoryEvent) []int {
	var out []int
	for _, ev := range history {
		if ev.GetEventType() != enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED {
			continue
		}
		a := ev.GetActivityTaskScheduledEventAttributes()
		if a.GetActivityType().GetName() == signals.ModelActivity {
			out = append(out, proto.Size(a.GetInput()))
		}
	}
	return out
}

// envelopeTypes are the log's events as "seq type", for a readable diff.
func envelopeTypes(log []eventlog.Envelope) []string {
	out := make([]string, len(log))
	for i, env := range log {
		out[i] = fmt.Sprintf("%d %s", env.Seq, env.Type)
	}
	return out
}

// requireSameLog compares two logs event by event, decoded.
func requireSameLog(t *testing.T, want, got []eventlog.Envelope) {
	t.Helper()
	require.Equal(t, envelopeTypes(want), envelopeTypes(got), "the events' types, in order")
	for i := range want {
		w, g := want[i], got[i]
		require.Equal(t, w.Seq, g.Seq)
		require.Equal(t, w.Type, g.Type, "seq %d", w.Seq)
		require.True(t, w.At.Equal(g.At), "seq %d at %s vs %s", w.Seq, w.At, g.At)
		require.Equal(t, w.Ref, g.Ref, "seq %d", w.Seq)
		we, err := eventlog.Decode(w)
		require.NoError(t, err)
		ge, err := eventlog.Decode(g)
		require.NoError(t, err)
		require.Equal(t, we, ge, fmt.Sprintf("seq %d", w.Seq))
	}
}
