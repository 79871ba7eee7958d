package loop

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// The spawn rules need no Loop: a config and a fold are all they read.

func TestAChildGetsItsShareOfWhatItsSiblingsDoNotHold(t *testing.T) {
	cfg := Config{AgentID: "p", Options: signals.AgentOptions{Tools: []string{"calc"}, Budget: &signals.Budget{MaxTokens: 1000}}}
	st := eventlog.NewState(0)
	st.Usage = eventlog.Usage{InputTokens: 100, OutputTokens: 100}
	st.Children = []eventlog.Child{{ID: "p.child-1", Budget: eventlog.ChildBudget{MaxTokens: 400},
		Spent: eventlog.Usage{InputTokens: 50, OutputTokens: 50}}}
	start, budget, err := spawns{&cfg, &st}.start("p.child-2", signals.SpawnArgs{Task: "sum", Budget: 0.5})
	require.NoError(t, err)
	require.Equal(t, eventlog.ChildBudget{MaxTokens: 250}, budget, "(1000 - 200 used - 300 held) / 2")
	require.Equal(t, int64(250), start.Input.Options.Budget.MaxTokens)
	require.Equal(t, []string{"calc"}, start.Input.Options.Tools)
	require.Equal(t, &signals.ParentLink{ID: "p", Depth: 1}, start.Input.Parent)
}

func TestTheDeepestChildSpawnsNoFurther(t *testing.T) {
	tools := []string{"calc", signals.SpawnTool}
	cfg := Config{AgentID: "p", Options: signals.AgentOptions{Tools: tools}, Parent: &signals.ParentLink{ID: "g", Depth: signals.MaxChildDepth - 1}}
	st := eventlog.NewState(0)
	start, _, err := spawns{&cfg, &st}.start("p.child-1", signals.SpawnArgs{Task: "go"})
	require.NoError(t, err)
	require.Equal(t, []string{"calc"}, start.Input.Options.Tools)
	require.Equal(t, tools, cfg.Options.Tools, "the parent's tools stay")

	cfg.Parent.Depth = signals.MaxChildDepth
	_, _, err = spawns{&cfg, &st}.start("p.child-2", signals.SpawnArgs{Task: "go"})
	require.ErrorIs(t, err, signals.ErrInvalidSpawn)
}

// A profile that names no tools gives its child none, after the round trip
// through the run config's JSON that every profile makes (found by the
// orchestrator example: omitempty lost the empty list, and the child got
// all its parent's tools). An omitted list still means the parent's.
func TestAProfileWithNoToolsGivesItsChildNoneAfterTheRunConfigsRoundTrip(t *testing.T) {
	in := map[string]signals.Profile{
		"reviewer": {Options: signals.AgentOptions{SystemPrompt: "Review.", Tools: []string{}}},
		"helper":   {Options: signals.AgentOptions{SystemPrompt: "Help."}},
	}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	var profiles map[string]signals.Profile
	require.NoError(t, json.Unmarshal(b, &profiles))

	cfg := Config{AgentID: "p", Options: signals.AgentOptions{Tools: []string{"calc", "read_file"}}, Profiles: profiles}
	st := eventlog.NewState(0)
	start, _, err := spawns{&cfg, &st}.start("p.child-1", signals.SpawnArgs{Task: "look", Profile: "reviewer"})
	require.NoError(t, err)
	require.NotNil(t, start.Input.Options.Tools)
	require.Empty(t, start.Input.Options.Tools, "no tools, as the profile says")

	start, _, err = spawns{&cfg, &st}.start("p.child-2", signals.SpawnArgs{Task: "help", Profile: "helper"})
	require.NoError(t, err)
	require.Equal(t, []string{"calc", "read_file"}, start.Input.Options.Tools, "omitted: the parent's")
}
