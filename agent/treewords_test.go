package agent

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// A model the options left to the worker reads so, never as a model named
// "default", until the worker's resolved choice is recorded.
func TestModelShownNamesTheWorkersDefaultNotAModelCalledDefault(t *testing.T) {
	for label, want := range map[string]string{
		"default/default":        "worker default",
		"openai/default":         "openai/worker default",
		"default/gpt-4o-mini":    "worker default/gpt-4o-mini",
		"scripted/scripted-demo": "scripted/scripted-demo",
		"":                       "",
	} {
		require.Equal(t, want, ModelShown(label), label)
	}
}

func TestOpenStatusSaysDisposingOnceDisposeWasAsked(t *testing.T) {
	require.Equal(t, "idle", OpenStatus(signals.StatusView{Status: eventlog.StatusIdle}))
	require.Equal(t, "running", OpenStatus(signals.StatusView{Status: eventlog.StatusRunning}))
	require.Equal(t, StatusDisposing, OpenStatus(signals.StatusView{Status: eventlog.StatusIdle, Disposed: true}))
}
