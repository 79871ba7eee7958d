package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"

	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// mismatched are JSON objects of the wrong field types for each handler's
// payload type: they never decode, so no handler sees a zero value (a
// zero Cancel would be a valid cancel).
var mismatched = map[string][]string{
	"followup":     {`{"id":42,"content":"FLOOD-TYPE"}`, `{"id":"flood-tm","content":["FLOOD-TYPE"]}`},
	"steer":        {`{"id":"flood-tm","content":{"FLOOD-TYPE":1}}`},
	"inject":       {`{"id":["flood-tm"],"content":"FLOOD-TYPE"}`},
	"send":         {`{"id":"flood-tm","content":"FLOOD-TYPE","list":7}`, `{"id":"flood-tm","content":"FLOOD-TYPE","wake":"yes"}`},
	"cancel":       {`{"cause":7}`, `{"cause":"FLOOD-TYPE","keep_inbox":"yes"}`},
	"dispose":      {`{"cause":["FLOOD-TYPE"]}`},
	"select-model": {`{"provider":1}`, `{"model":["FLOOD-TYPE"]}`},
	"child-report": {`{"id":"flood#1","child":5}`, `{"turn":"one","text":"FLOOD-TYPE"}`},
	"maintain":     {`{"task":5}`},
	"wait-idle":    {`"FLOOD-TYPE"`},
	"spawn":        {`{"task":5,"id":"flood-sp"}`, `{"task":"FLOOD-TYPE","id":"flood-sp","budget":"all"}`},
	"approve":      {`{"id":"flood-d","call_id":9}`},
	"deny":         {`{"id":"flood-d","call_id":["x"],"text":"FLOOD-TYPE"}`},
	"answer":       {`{"id":7,"call_id":"x","text":"FLOOD-TYPE"}`},
}

// badPayload is a payload no handler of name decodes: a JSON value of
// another kind, broken JSON, bytes, an unknown encoding, or (for a known
// name) an object with fields of the wrong types.
func badPayload(rng *rand.Rand, name string) *commonpb.Payloads {
	if m := mismatched[name]; len(m) > 0 && rng.IntN(2) == 0 {
		return js(pick(rng, m))
	}
	switch rng.IntN(6) {
	case 0:
		return js(`"FLOOD-TYPE a string"`)
	case 1:
		return js(`[1,2,3]`)
	case 2:
		return js(`42`)
	case 3:
		return js(`{"id":"FLOOD-TYPE`)
	case 4:
		return payload("binary/plain", []byte("FLOOD-TYPE \x00\x01\xff"))
	}
	return payload("x/unknown", []byte(`{"id":"flood","content":"FLOOD-TYPE"}`))
}

// emptyPayload is no payload at all, or an empty object: both decode as
// the zero value, which every handler given it refuses.
func emptyPayload(rng *rand.Rand) *commonpb.Payloads {
	if rng.IntN(2) == 0 {
		return nil
	}
	return js(`{}`)
}

// badUpdate is an update whose payload decodes but which the agent must
// refuse: a bad message, an unknown list or task, an invalid spawn, a
// decision for a call that waits for none.
func badUpdate(rng *rand.Rand, n int) (name, body string) {
	switch rng.IntN(5) {
	case 0:
		return pick(rng, messageNames), badMessage(rng, n)
	case 1:
		return "send", fmt.Sprintf(`{"id":"flood-list-%d","content":"FLOOD-LIST","list":"sideways","wake":true}`, n)
	case 2:
		return "maintain", `{"task":"defragment"}`
	case 3:
		spawns := []string{`"budget":7`, `"mode":"sideways"`, `"tools":["rm_rf"]`, `"list":"sideways"`}
		return "spawn", fmt.Sprintf(`{"id":"flood-spawn-%d","task":"FLOOD-SPAWN /say hi",%s}`, n, pick(rng, spawns))
	}
	return pick(rng, []string{"approve", "deny", "answer"}),
		fmt.Sprintf(`{"id":"flood-decision-%d","call_id":"flood-no-such-call","decider":"flood","text":"FLOOD-DECISION"}`, n)
}

// invalidOptions are options no agent may start with.
var invalidOptions = []signals.AgentOptions{
	{Tools: []string{"echo", "rm_rf"}},
	{Provider: "flood-no-such-provider"},
	{MaxParallelTools: 4000},
	{MaxSteps: -3},
	{MaxTokens: -1},
	{SystemPrompt: strings.Repeat("p", signals.MaxSystemPromptSize+1)},
	{Tools: []string{"echo", "echo"}},
	{Budget: &signals.Budget{MaxTokens: -5}},
	{Approval: &signals.ApprovalPolicy{OnTimeout: "maybe"}},
	{Wait: &signals.WaitPolicy{Max: -time.Second}},
	{Hooks: []string{""}},
}

// absurdInput is a start an agent runs with: a context window of one
// token, no input at all, or a parent link to a fleet agent that never
// started it.
func absurdInput(rng *rand.Rand, target string) *commonpb.Payloads {
	first := &signals.Message{ID: "flood-first", Content: floodMarker + "ABSURD /tool echo {}"}
	switch rng.IntN(3) {
	case 0:
		return jsonOf(signals.AgentInput{First: first, Options: signals.AgentOptions{Provider: scripted.Name,
			Tools: []string{"echo"}, Compaction: &signals.Compaction{Window: 1}}})
	case 1:
		return nil
	}
	return jsonOf(signals.AgentInput{First: first, Options: signals.AgentOptions{Provider: scripted.Name, Tools: []string{"echo"}},
		Parent: &signals.ParentLink{ID: target, Depth: 1}})
}

// replayChildReport sends a spawning agent, again, the report its
// detached child already made of its first turn: the same message ID.
func replayChildReport(ctx context.Context, f *flood, _ string) string {
	if len(f.spawners) == 0 {
		return outSkipped
	}
	parent := pick(f.rng, f.spawners)
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	h, err := agent.New(f.c, "").Attach(qctx, parent)
	var st signals.StatusView
	if err == nil {
		st, err = h.Status(qctx)
	}
	if err != nil {
		return "no outcome: status " + grpcOutcome(err)
	}
	for _, c := range st.Children {
		if c.Mode == eventlog.ChildDetach && c.Settled > 0 {
			r := signals.ChildReport{ID: signals.ChildReportID(c.ID, 1), Child: c.ID, Turn: 1, Reason: eventlog.EndCompleted,
				Text: floodMarker + "REPLAY"}
			return f.signal(ctx, parent, "child-report", jsonOf(r))
		}
	}
	return outSkipped
}
