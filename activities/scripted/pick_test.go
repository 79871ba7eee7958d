package scripted_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

func TestCompleteReadsDatesAsDatesNotArithmetic(t *testing.T) {
	tests := []struct {
		name   string
		prompt string
		want   eventlog.AssistantMessage
	}{
		{"an ISO date asks for the clock", "What happens on 2026-12-01?",
			callsOf(tc("call_1_0", "current_time", `{}`))},
		{"a date and time too", "Remind me at 2026-12-01T10:00:00Z",
			callsOf(tc("call_1_0", "current_time", `{}`))},
		{"a slash date is no division", "Is 12/01/2026 a holiday?",
			callsOf(tc("call_1_0", "current_time", `{}`))},
		{"arithmetic beside a date is still arithmetic", "On 2026-12-01, what is 17*23?",
			callsOf(tc("call_1_0", "current_time", `{}`), tc("call_1_1", "calculate", `{"expression":"17*23"}`))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := complete(t, llm.Request{Messages: []eventlog.Message{user(tt.prompt)}, Tools: allTools})
			require.Equal(t, tt.want, got)
		})
	}
}

func TestCompleteAnswersWithEachDatesWeekdayAndTheDaysBetween(t *testing.T) {
	clock := tc("call_1_0", "current_time", `{}`)
	prompt := "How many days from 2026-11-01 to 2026-12-01?"
	got := complete(t, llm.Request{
		Messages: []eventlog.Message{user(prompt), asked(clock), result(clock, "2026-11-20T09:00:00Z (Friday, UTC)", false)},
		Tools:    allTools,
	})
	require.Equal(t, answer("I used 1 tool call(s).\n"+
		"- current_time returned: 2026-11-20T09:00:00Z (Friday, UTC)\n"+
		"2026-11-01 is a Sunday.\n"+
		"2026-12-01 is a Tuesday. From 2026-11-01 to 2026-12-01 is 30 day(s)."), got)

	alone := complete(t, llm.Request{Messages: []eventlog.Message{user("Is 2026-12-25 a weekend?")}})
	require.Equal(t, answer("Scripted model (no API key configured). You said: Is 2026-12-25 a weekend?\n"+
		"2026-12-25 is a Friday."), alone)
}

func TestCompleteTreatsGoModAsAFileName(t *testing.T) {
	tests := []struct{ prompt, path string }{
		{"What is in go.mod?", "go.mod"},
		{"Which module does go.mod name, and what is 2+2?", "go.mod"},
		{"Check go.sum", "go.sum"},
		{"Show internal/deps/doc.go", "internal/deps/doc.go"},
		{"Read the Makefile", "Makefile"},
		{"Open config.toml", "config.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			got := complete(t, llm.Request{Messages: []eventlog.Message{user(tt.prompt)}, Tools: offered("read_file", "list_files")})
			require.Equal(t, callsOf(tc("call_1_0", "read_file", `{"path":"`+tt.path+`"}`)), got)
		})
	}
}
