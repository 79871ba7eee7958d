package chaos

import (
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// journaledTools are the tools whose executions the journal records.
var journaledTools = []string{"echo", "slow"}

// checkTools: a journaled call that ran has the answer of an execution
// with its key, and no execution of that key started after its result was
// recorded (after the activity's completion in history, or the result's
// time in the log, whichever is earlier; log times are whole
// milliseconds, so a start counts as later only from the next one). A
// denied call never ran; no execution is left without a result.
func checkTools(r *record, journal map[string][]execution, v *violations) {
	completed := completions(r)
	var turn, step int
	var calls []eventlog.ToolCallRequest
	results := map[string]bool{}
	for i, e := range r.events {
		switch e := e.(type) {
		case eventlog.StepStart:
			turn, step = e.Turn, e.Step
		case eventlog.AssistantMessage:
			calls = e.ToolCalls
		case eventlog.ToolCall:
			if want := signals.IdempotencyKey(r.id, turn, step, e.CallID); e.IdempotencyKey != want {
				v.add("%s: call %s has key %q, want %q", r.id, e.CallID, e.IdempotencyKey, want)
			}
		case eventlog.ToolResult:
			if !slices.Contains(journaledTools, e.Name) {
				continue
			}
			key := signals.IdempotencyKey(r.id, turn, step, e.CallID)
			results[key] = true
			bound := r.log[i].At.Add(time.Millisecond)
			index := slices.IndexFunc(calls, func(c eventlog.ToolCallRequest) bool { return c.ID == e.CallID })
			if at, ok := completed[signals.ToolActivityID(turn, step, index)]; ok && at.Before(bound) {
				bound = at
			}
			checkResult(r, e, key, bound, journal[key], v)
		}
	}
	for key := range journal {
		if owner, _, _ := strings.Cut(key, "/"); owner == r.id && !results[key] {
			v.add("%s: %s ran (%d journal lines) but has no result in the log", r.id, key, len(journal[key]))
		}
	}
}

// A call canceled by a dispose mid-turn may start after its cancel is
// recorded: its activity task was on its way to the worker (Temporal
// cancels only an activity no worker took yet). It is counted
// (record.lateCanceled); a second start after the cancel is a violation.
func checkResult(r *record, e eventlog.ToolResult, key string, bound time.Time, execs []execution, v *violations) {
	agentID := r.id
	starts, dones, late := 0, 0, 0
	canceled := r.cut && e.Outcome == eventlog.ToolCanceled
	for _, x := range execs {
		switch {
		case x.verb == "done":
			dones++
		case x.at.After(bound) && canceled:
			late++
			starts++
		case x.at.After(bound):
			v.add("%s: %s started again at %s (pid %d), after its result was recorded (%s)", agentID, key,
				x.at.Format(time.StampMicro), x.pid, bound.Format(time.StampMicro))
			starts++
		default:
			starts++
		}
	}
	if r.lateCanceled += late; late > 1 {
		v.add("%s: %s started %d times after its cancel was recorded (%s)", agentID, key, late, bound.Format(time.StampMicro))
	}
	switch e.Outcome {
	case "":
		if e.IsError || !strings.HasPrefix(e.Content, e.Name+" ok "+key) {
			v.add("%s: the result of %s is not its tool's answer: %q", agentID, key, clip(e.Content))
		}
		if starts == 0 || dones == 0 {
			v.add("%s: %s has a result but the journal has %d starts, %d ends", agentID, key, starts, dones)
		}
	case eventlog.ToolDenied:
		if len(execs) > 0 {
			v.add("%s: %s was denied but ran %d times", agentID, key, starts)
		}
	case eventlog.ToolCanceled:
		if !r.cut {
			v.add("%s: %s ended %s: %q", agentID, key, e.Outcome, clip(e.Content))
		}
	default:
		v.add("%s: %s ended %s: %q", agentID, key, e.Outcome, clip(e.Content))
	}
}

// completions maps each activity ID of the chain to when its completion
// reached the server.
func completions(r *record) map[string]time.Time {
	out := map[string]time.Time{}
	for _, run := range r.runs {
		ids := map[int64]string{}
		for _, ev := range run.events {
			switch ev.GetEventType() {
			case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
				ids[ev.GetEventId()] = ev.GetActivityTaskScheduledEventAttributes().GetActivityId()
			case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
				out[ids[ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()]] = ev.GetEventTime().AsTime()
			}
		}
	}
	return out
}

// faultWords would tell the model of an infrastructure fault.
var faultWords = []string{"timed out", "timeout", "heartbeat", "worker", "deadline exceeded", "connection refused",
	"unavailable", "context canceled"}

// checkFaults: no failed model call, no tool result naming a fault (but
// the crashing MCP tool's, which says so by design), and
// (for the fleet) every turn completed or concluded, but for an agent the
// harness disposed mid-turn, whose turn, its model call or tool call in
// flight end canceled.
func checkFaults(r *record, v *violations) {
	for _, e := range r.events {
		switch e := e.(type) {
		case eventlog.AssistantAttempt:
			if r.cut && e.Failure.Kind == eventlog.FailureCanceled {
				continue // the dispose canceled the model call in flight
			}
			v.add("%s: a failed model call was recorded: %s %s", r.id, e.Failure.Kind, clip(e.Failure.Message))
		case eventlog.ToolResult:
			if r.cut && e.Outcome == eventlog.ToolCanceled || e.Name == crashTool {
				continue // a fault the model is meant to read: checkMCP checks its words
			}
			lower := strings.ToLower(e.Content)
			for _, w := range faultWords {
				if strings.Contains(lower, w) {
					v.add("%s: tool %s's result says %q: %q", r.id, e.Name, w, clip(e.Content))
					break
				}
			}
		case eventlog.TurnEnd:
			if r.fleet() && e.Reason != eventlog.EndCompleted && e.Reason != eventlog.EndConcluded && !(r.cut && e.Reason == eventlog.EndCanceled) {
				v.add("%s: turn %d ended %s: %s", r.id, e.Turn, e.Reason, e.Error)
			}
		}
	}
}

// checkConversation: in the log and in the conversation the model sees,
// every tool call of an assistant message has exactly one result before
// the next assistant message (or a user message, or the turn's end).
func checkConversation(r *record, v *violations) {
	var open []string
	for _, e := range r.events {
		switch e := e.(type) {
		case eventlog.AssistantMessage:
			expectNone(r.id, "an assistant message", open, v)
			open = callIDs(e.ToolCalls)
		case eventlog.ToolResult:
			open = answer(r.id, "log", e.CallID, open, v)
		case eventlog.TurnEnd:
			expectNone(r.id, "the end of turn", open, v)
			open = nil
		}
	}
	open = nil
	for _, m := range eventlog.ConversationOf(r.events) {
		switch m.Role {
		case eventlog.RoleAssistant:
			expectNone(r.id, "an assistant message the model sees", open, v)
			open = callIDs(m.ToolCalls)
		case eventlog.RoleTool:
			open = answer(r.id, "model context", m.ToolCallID, open, v)
		case eventlog.RoleUser:
			expectNone(r.id, "a user message the model sees", open, v)
		}
	}
}

func callIDs(calls []eventlog.ToolCallRequest) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.ID)
	}
	return out
}

func expectNone(agentID, at string, open []string, v *violations) {
	if len(open) > 0 {
		v.add("%s: %s while calls %v have no result", agentID, at, open)
	}
}

func answer(agentID, where, callID string, open []string, v *violations) []string {
	i := slices.Index(open, callID)
	if i < 0 {
		v.add("%s: %s has a result for call %s, which awaits none", agentID, where, callID)
		return open
	}
	return slices.Delete(open, i, i+1)
}

// checkStreams: every stream a client read to its end, with no reset,
// says what the log's assistant message of that step says.
func checkStreams(r *record, reads map[streamKey]string, v *violations) {
	texts := map[[2]int]string{}
	var turn, step int
	for _, e := range r.events {
		switch e := e.(type) {
		case eventlog.StepStart:
			turn, step = e.Turn, e.Step
		case eventlog.AssistantMessage:
			texts[[2]int{turn, step}] = e.Text
		}
	}
	for k, text := range reads {
		want, ok := texts[[2]int{k.turn, k.step}]
		switch {
		case !ok:
			v.add("%s: a stream of step %d.%d was read to its end, but the log has no answer of that step", r.id, k.turn, k.step)
		case text != want:
			v.add("%s: the stream of step %d.%d (attempt %d) read %q, the log says %q", r.id, k.turn, k.step, k.attempt, clip(text), clip(want))
		}
	}
}
