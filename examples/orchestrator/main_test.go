package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/examples/internal/exampletest"
	"github.com/tetherdev/tether/signals"
)

// lookup is the task both children get: the researcher's profile lets it
// call lookup_fact, the reviewer's lets it call nothing.
const lookup = `/tool lookup_fact {"topic":"mars"}`

// A parent spawns one child of each profile and reads their answers as
// its calls' results; each child has its profile's system prompt and
// tools.
func TestOrchestratorChildrenGetTheirProfilesPromptAndTools(t *testing.T) {
	srv := exampletest.NewServer(t)
	worker := exampletest.Start(t, exampletest.Build(t), srv.Args()...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	spawn := func(profile string) string {
		args, err := json.Marshal(signals.SpawnArgs{Profile: profile, Task: lookup})
		require.NoError(t, err)
		return "/tool spawn_agent " + string(args)
	}
	h, err := srv.Agents.Create(ctx, agent.CreateOptions{
		Options: signals.AgentOptions{Tools: []string{"spawn_agent", "lookup_fact"}},
		First:   spawn("researcher") + "\n" + spawn("reviewer"),
	})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err, worker.Log())

	children := map[string]string{} // child ID → transcript
	for _, e := range events(t, ctx, h) {
		if c, ok := e.(eventlog.ChildStarted); ok {
			child, err := srv.Agents.Attach(ctx, c.ChildID) // a waited-for child is disposed once it answered
			require.ErrorIs(t, err, agent.ErrClosed)
			children[c.ChildID] = childTranscript(t, ctx, child)
		}
	}
	require.Len(t, children, 2)
	var researcher, reviewer string
	for _, text := range children {
		switch {
		case strings.Contains(text, "You research one question"):
			researcher = text
		case strings.Contains(text, "You review a draft"):
			reviewer = text
		}
	}
	require.Contains(t, researcher, "result: Mars has two moons, Phobos and Deimos.")
	require.NotContains(t, reviewer, "Phobos", "the reviewer's profile of no tools gives it no lookup_fact, though its parent has it")
	require.Contains(t, reviewer, "error result:")

	var answers []string
	for _, r := range exampletest.Results(t, ctx, h) {
		require.Equal(t, "spawn_agent", r.Name)
		answers = append(answers, r.Content)
	}
	require.Len(t, answers, 2)
	require.Contains(t, strings.Join(answers, "\n"), "Phobos", "the parent read the researcher's answer")
}

func events(t *testing.T, ctx context.Context, h *agent.Handle) []eventlog.Event {
	t.Helper()
	envs, err := h.Log(ctx)
	require.NoError(t, err)
	evs, err := eventlog.DecodeAll(envs)
	require.NoError(t, err)
	return evs
}

// childTranscript is a child's system prompt, tool results and answers.
func childTranscript(t *testing.T, ctx context.Context, h *agent.Handle) string {
	t.Helper()
	var b strings.Builder
	for _, e := range events(t, ctx, h) {
		switch e := e.(type) {
		case eventlog.SystemMessage:
			b.WriteString("system: " + e.Content + "\n")
		case eventlog.ToolResult:
			b.WriteString(map[bool]string{true: "error result: ", false: "result: "}[e.IsError] + e.Content + "\n")
		case eventlog.AssistantMessage:
			b.WriteString("answer: " + e.Text + "\n")
		}
	}
	return b.String()
}
