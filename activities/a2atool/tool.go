package a2atool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/signals"
)

// parameters is the schema of every remote agent's tool.
var parameters = json.RawMessage(`{"type":"object","properties":{` +
	`"message":{"type":"string","description":"What to ask or tell the remote agent, or the answer to the question it asked (with task_id)."},` +
	`"context_id":{"type":"string","description":"To continue an earlier conversation with this agent: the context_id an earlier result gave."},` +
	`"task_id":{"type":"string","description":"To answer a task that needs input, or to wait for one still working (then without message): the task_id an earlier result gave."}` +
	`},"additionalProperties":false}`)

// MaxDescription bounds a tool's description made from a card.
const MaxDescription = 4 << 10

// Tool is the worker's tool for r: named signals.A2AToolName, described
// from r's card (as fetched by Start; a card not fetched yet leaves a
// description that says so), run as a regular activity (never Local: a
// call waits on another agent).
func (r *Remote) Tool() tools.Tool {
	return tools.Tool{
		Name:        signals.A2AToolName(r.Agent.Name),
		Description: r.describe(),
		Parameters:  parameters,
		Mode:        tools.Parallel,
		Run:         r.Call,
	}
}

func (r *Remote) describe() string {
	var b strings.Builder
	card := r.Card()
	if card == nil {
		fmt.Fprintf(&b, "A remote agent (%s) reached over the A2A protocol. Its agent card could not be fetched when this worker started (%v), so what it does is unknown; a call tries it again.", r.Agent.Name, r.startErr())
	} else {
		fmt.Fprintf(&b, "A remote agent, %s, reached over the A2A protocol: %s", card.Name, strings.TrimSpace(card.Description))
		if len(card.Skills) > 0 {
			b.WriteString("\nSkills:")
			for _, s := range card.Skills {
				fmt.Fprintf(&b, "\n- %s: %s", firstOf(s.Name, s.ID), strings.TrimSpace(s.Description))
			}
		}
	}
	b.WriteString("\nSend it a message; the result is its answer, or its question when it needs input (answer with task_id), " +
		"with the context_id that continues the conversation.")
	return tools.Truncate(b.String(), MaxDescription)
}

// Remotes are the configured agents, each started (its card fetched) by
// Start.
type Remotes []*Remote

// Start fetches every card, at once.
func (rs Remotes) Start(ctx context.Context) {
	done := make(chan struct{}, len(rs))
	for _, r := range rs {
		go func() { r.Start(ctx); done <- struct{}{} }()
	}
	for range rs {
		<-done
	}
}

// Tools are the remotes' tools.
func (rs Remotes) Tools() []tools.Tool {
	out := make([]tools.Tool, len(rs))
	for i, r := range rs {
		out[i] = r.Tool()
	}
	return out
}
