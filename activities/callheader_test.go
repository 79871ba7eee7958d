package activities_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// A call that names no configuration (loop.RulesCallFromHeader) is made
// as the last request/header of its log prefix says: provider, model,
// max tokens and tools; a later header in the log does not count.
func TestAModelCallThatNamesNoConfigurationTakesItFromTheLogsRequestHeader(t *testing.T) {
	log := encodeLog(t, []eventlog.Event{
		eventlog.TurnStart{Turn: 1},
		eventlog.UserMessage{MessageID: "m1", Content: "hi"},
		eventlog.RequestHeader{Provider: "main", Model: "m-old"},
		eventlog.RequestHeader{Provider: "other", Model: "m-h", MaxTokens: 99, Tools: []string{"echo"}},
		eventlog.RequestContext{Messages: 1},
		eventlog.RequestHeader{Provider: "main", Model: "m-later"},
	})
	q := &fakeLogQuerier{logs: map[string][]eventlog.Envelope{"a": log}}
	answer := eventlog.AssistantMessage{Text: "hello", FinishReason: eventlog.FinishStop}
	main, other := &fakeProvider{out: answer}, &fakeProvider{out: answer}
	m := newModel(t, map[string]activities.Provider{"main": main, "other": other}, activities.NewLogReader(q, 0))

	got, err := callModel(t, m, signals.ModelInput{Ref: ref("a", 5)})
	require.NoError(t, err)
	require.Equal(t, "other", got.Provider)
	require.Equal(t, "m-h", got.Model)
	require.Empty(t, main.requests())
	reqs := other.requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "m-h", reqs[0].Model)
	require.Equal(t, 99, reqs[0].MaxTokens)
	require.Len(t, reqs[0].Tools, 1)
	require.Equal(t, "echo", reqs[0].Tools[0].Name)
	require.Equal(t, []eventlog.Message{{Role: eventlog.RoleUser, Content: "hi"}}, reqs[0].Messages)

	// A call that names its configuration is made as named, whatever the log says.
	_, err = callModel(t, m, signals.ModelInput{Ref: ref("a", 5), Call: signals.CallConfig{Model: "m-named", Turn: 1, Step: 1}})
	require.NoError(t, err)
	require.Equal(t, "m-named", main.requests()[0].Model)
}

// With no header in the log (a call recorded before those rules, which
// names everything itself) the call is made as it is.
func TestAModelCallWithNoHeaderInItsLogIsMadeAsItIs(t *testing.T) {
	log := encodeLog(t, []eventlog.Event{eventlog.UserMessage{MessageID: "m1", Content: "hi"}})
	q := &fakeLogQuerier{logs: map[string][]eventlog.Envelope{"a": log}}
	p := &fakeProvider{out: eventlog.AssistantMessage{Text: "hello", FinishReason: eventlog.FinishStop}}
	m := newModel(t, map[string]activities.Provider{"main": p}, activities.NewLogReader(q, 0))
	got, err := callModel(t, m, signals.ModelInput{Ref: ref("a", 1)})
	require.NoError(t, err)
	require.Equal(t, "main", got.Provider, "the worker's default")
	require.Len(t, p.requests(), 1)
}

// A log that cannot be read is a fault, retried, as for the conversation.
func TestAModelCallWhoseHeaderCannotBeReadIsRetryableLogUnavailable(t *testing.T) {
	q := &fakeLogQuerier{logs: map[string][]eventlog.Envelope{}, fail: func(int) error { return errors.New("no poller for the workflow's task queue") }}
	m := newModel(t, map[string]activities.Provider{"main": &fakeProvider{}}, activities.NewLogReader(q, 0))
	m.Log.(*activities.LogReader).QueryAttempts = 1
	_, err := callModel(t, m, signals.ModelInput{Ref: ref("a", 3)})
	appErr := requireAppError(t, err)
	require.Equal(t, activities.ErrLogUnavailable, appErr.Type())
	require.False(t, appErr.NonRetryable())
}
